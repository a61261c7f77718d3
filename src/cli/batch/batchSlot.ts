import { spawn, type ChildProcess } from 'node:child_process';
import {
  BATCH_LINK_VAR,
  BATCH_SLOT_VAR,
  ChildMessage,
  LinkMessageError,
  readLinkMessage,
  type ParentMessage,
  type SlotOrder,
} from './linkMessages';
import type { CallPermits } from './callPermits';

/** What the batch holds while it runs: its slots' processes and the permits their model calls share. */
export interface Live {
  children: Set<ChildProcess>;
  permits: CallPermits;
}

export interface SlotOptions {
  /** The built CLI a slot's process runs. */
  cliEntry: string;
  /** The batch's cancel (Ctrl-C): one SIGINT to the slot's process, whose run records it. */
  signal: AbortSignal;
  progress: (line: string) => void;
  live: Live;
}

/** How a ticket's run in a slot ended: `run`'s exit code (null when its process died), and the last line it said. */
export interface TicketEnd {
  code: number | null;
  lastLine: string;
}

/** How long a slot's process has to exit once the batch is done with it, before it is killed. */
const CLOSE_GRACE_MS = 10_000;

/**
 * One of the batch's `--parallel` slots: a `ticket-runner` process in its own process group
 * (a Ctrl-C in the terminal reaches the batch only, which passes one SIGINT on) that runs the
 * slot's tickets one after another (src/cli/batch/slot.ts). A process that dies takes only the
 * ticket it was running with it: the slot's next ticket gets a new process.
 */
export class BatchSlot {
  private child: ChildProcess | undefined;
  /** Said `slot/ready`: its signal handlers are set, so a SIGINT is a cancel, not a kill. */
  private heard = false;
  private interrupted = false;
  private ticket: { tag: string; lastLine: string; done: (end: TicketEnd) => void } | undefined;
  private queued: SlotOrder | undefined;
  /** Said when a process has ended and its output is read (close() waits for it). */
  private readonly onEnd = new WeakMap<ChildProcess, () => void>();

  constructor(private readonly o: SlotOptions) {
    o.signal.addEventListener('abort', () => this.interrupt(), { once: true });
  }

  /** Runs `ticket-runner <argv>` from `cwd` in this slot; its stderr lines go to progress as `[tag] …`. */
  run(argv: string[], cwd: string, tag: string): Promise<TicketEnd> {
    const child = this.child ?? this.start();
    return new Promise((done) => {
      this.ticket = { tag, lastLine: '', done };
      const order: SlotOrder = { type: 'ticket/run', argv, cwd };
      if (this.heard) this.send(child, order);
      else this.queued = order;
    });
  }

  /** Lets the slot's process go (it exits once idle and disconnected); killed if it has not after a grace. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const closed = new Promise<void>((resolve) => this.onEnd.set(child, resolve));
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.pid !== undefined && killGroup(child.pid), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  private start(): ChildProcess {
    // The IPC channel is the slot's link to the batch: its tickets come on it, its model calls
    // ask here first, and when the batch dies the channel closes, which a run takes as its cancel.
    const child = spawn(process.execPath, [this.o.cliEntry], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, [BATCH_LINK_VAR]: '1', [BATCH_SLOT_VAR]: '1' },
    });
    this.child = child;
    this.heard = false;
    const { live } = this.o;
    live.children.add(child);
    const held = new Set<number>();
    child.on('message', (raw) => {
      let m: ChildMessage;
      try {
        m = readLinkMessage(ChildMessage, raw, `the process of ${this.ticket ? `${this.ticket.tag}'s slot` : 'a slot'} (pid ${child.pid})`);
      } catch (err) {
        if (!(err instanceof LinkMessageError)) throw err;
        // A process that speaks past the protocol cannot be trusted with its run: its ticket
        // ends as an error that says why, and the process goes (the slot's next ticket gets a new one).
        say(err.message);
        if (this.child === child) this.child = undefined;
        this.finish({ code: null, lastLine: err.message });
        if (child.pid !== undefined) killGroup(child.pid);
        return;
      }
      switch (m.type) {
        case 'slot/ready':
          this.heard = true;
          if (this.interrupted) this.interrupt();
          if (this.queued) this.send(child, this.queued);
          this.queued = undefined;
          return;
        case 'ticket/done':
          return this.finish({ code: m.code, lastLine: this.ticket?.lastLine ?? '' });
        case 'call/release':
          held.delete(m.permit);
          return live.permits.release(m.permit, m.costUsd);
        case 'call/acquire': {
          const { id, key, maxCostUsd } = m;
          return live.permits.acquire(
            key,
            maxCostUsd,
            (permit) => {
              // A process gone before its permit came cannot use it.
              if (!child.connected) return live.permits.release(permit, 0);
              held.add(permit);
              this.send(child, { type: 'call/granted', id, permit });
            },
            (r) => this.send(child, { type: 'call/refused', id, limitUsd: r.limitUsd, spentUsd: r.spentUsd }),
          );
        }
      }
    });
    let pending = '';
    const say = (l: string) => {
      if (this.ticket) this.ticket.lastLine = l;
      this.o.progress(`[${this.ticket?.tag ?? 'batch'}] ${l}`);
    };
    child.stdout!.resume();
    child.stderr!.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) say(l);
    });
    // Its end: exited, and its output read to the last line. (Not 'close': that also waits for
    // the IPC channel, which a slot the batch let go of never closes from its side.)
    const ended = (stream: NodeJS.ReadableStream) => new Promise<void>((resolve) => stream.once('close', () => resolve()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    void Promise.all([exited, ended(child.stdout!), ended(child.stderr!)]).then(([code]) => {
      live.children.delete(child);
      // A process that died mid-call never said what the call cost: its permits come back as free.
      for (const permit of held) live.permits.release(permit, 0);
      if (pending.trim()) say(pending);
      // A process let go of already (it broke the protocol) has no ticket of this slot's to end.
      if (this.child === child) {
        this.child = undefined;
        this.finish({ code, lastLine: this.ticket?.lastLine ?? '' });
      }
      this.onEnd.get(child)?.();
    });
    child.on('error', (err) => {
      if (this.child === child) this.child = undefined;
      this.finish({ code: null, lastLine: err.message });
    });
    return child;
  }

  private finish(end: TicketEnd): void {
    const ticket = this.ticket;
    this.ticket = undefined;
    ticket?.done({ ...end, lastLine: end.lastLine.replace(/^ticket-runner:\s*/, '') });
  }

  /** One SIGINT to a process that can take it as a cancel; one that cannot yet is told once it says it can. */
  private interrupt(): void {
    this.interrupted = true;
    const child = this.child;
    if (this.heard && child && child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  }

  private send(child: ChildProcess, m: ParentMessage | SlotOrder): void {
    // A process that went away meanwhile: its close says so; a failed send must not end its wait early.
    if (child.connected) child.send(m, () => undefined);
  }
}

export function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}
