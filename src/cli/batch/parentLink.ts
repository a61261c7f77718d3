import { createHash } from 'node:crypto';
import { CancelledError } from '../../core/errors';
import type { ModelPort, ModelRequest } from '../../core/ports/model';
import { RunStop } from '../../core/recovery/runStop';
import {
  BATCH_LINK_VAR,
  BATCH_SLOT_VAR,
  LinkMessageError,
  ParentMessage,
  readLinkMessage,
  SlotInbox,
  type ChildMessage,
  type SlotOrder,
} from './linkMessages';

/** A provider that can say the most a call can cost before making it (the batch's dollar cap reserves it). */
interface CostBounded {
  maxCostUsd(request: ModelRequest): number;
}

const boundOf = (model: ModelPort, request: ModelRequest): number | null => {
  const bounded = model as Partial<CostBounded>;
  return typeof bounded.maxCostUsd === 'function' ? bounded.maxCostUsd(request) : null;
};

/** The API key's fingerprint: calls under one key share the batch's concurrency cap; the key itself never leaves the process. */
export function keyFingerprint(provider: string, apiKey: string | undefined): string {
  return apiKey ? `${provider}:${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}` : provider;
}

/** A ticket's process as its batch sees it: every model call asks the batch first. */
export interface ParentLink {
  /** The model whose calls wait for the batch's permit and report their cost. */
  wrap(model: ModelPort, key: string): ModelPort;
  /** The batch is gone (its process died, or closed the channel): the run must stop. */
  onGone(listener: () => void): void;
  /** A slot's next ticket; or the error of a message from the batch that could not be read, which may have been one. */
  onOrder(listener: (order: SlotOrder | LinkMessageError) => void): void;
}

/**
 * The link to the batch that started this process, or null when no batch did. The channel
 * is unreferenced (it does not keep the run alive) except while a call waits for its permit.
 */
export function parentLink(): ParentLink | null {
  if (linked === undefined) linked = openLink(process);
  return linked;
}
let linked: ParentLink | null | undefined;

/** `parentLink` over a given process (a test's stand-in): the one listener of the channel's messages. */
export function openLink(proc: NodeJS.Process): ParentLink | null {
  if (!proc.send || proc.env[BATCH_LINK_VAR] !== '1') return null;
  const send = proc.send.bind(proc);
  // A slot waits on the channel for its next ticket: it stays referenced there, always.
  const slot = proc.env[BATCH_SLOT_VAR] === '1';
  const channel = slot ? undefined : proc.channel;
  const waiting = new Map<number, (m: ParentMessage | LinkMessageError) => void>();
  let onOrder: ((order: SlotOrder | LinkMessageError) => void) | undefined;
  let nextId = 1;
  let gone = false;
  const goneListeners: (() => void)[] = [];
  const post = (m: ChildMessage) => {
    // A batch that died meanwhile: its disconnect cancels the run; the failed send is not an error of the run.
    if (!gone) send(m, undefined, undefined, () => undefined);
  };
  proc.on('message', (raw) => {
    let m: SlotInbox;
    try {
      m = readLinkMessage(slot ? SlotInbox : ParentMessage, raw, 'the batch');
    } catch (err) {
      if (!(err instanceof LinkMessageError)) throw err;
      // Said where the batch reads this process's lines; whatever waited for an answer ends with it.
      proc.stderr.write(`ticket-runner: ${err.message}\n`);
      for (const waiter of [...waiting.values()]) waiter(err);
      onOrder?.(err);
      return;
    }
    if (m.type === 'ticket/run') return onOrder?.(m);
    const waiter = waiting.get(m.id);
    if (waiter) waiter(m);
    // A permit for a call that stopped waiting (cancelled) goes straight back.
    else if (m.type === 'call/granted') post({ type: 'call/release', permit: m.permit, costUsd: 0 });
  });
  proc.once('disconnect', () => {
    gone = true;
    for (const l of goneListeners) l();
  });
  // Once the batch is gone nothing reads this process's output: a write must not crash the run's cancel.
  for (const stream of [proc.stdout, proc.stderr]) stream.on('error', () => undefined);
  channel?.unref();

  const permit = (key: string, maxCostUsd: number | null, signal: AbortSignal): Promise<number> =>
    new Promise((resolve, reject) => {
      if (gone) return reject(new CancelledError('the batch that started this run is gone'));
      const id = nextId++;
      const done = () => {
        waiting.delete(id);
        signal.removeEventListener('abort', onAbort);
        if (!waiting.size) channel?.unref();
      };
      const onAbort = () => {
        done();
        reject(new CancelledError('cancelled while waiting for the batch to allow the model call'));
      };
      waiting.set(id, (m) => {
        done();
        if (m instanceof LinkMessageError) reject(m);
        else if (m.type === 'call/refused')
          reject(new RunStop({ kind: 'budgetExceeded', budget: 'batchDollars', limit: m.limitUsd, used: m.spentUsd }, 'failed'));
        else resolve(m.permit);
      });
      signal.addEventListener('abort', onAbort, { once: true });
      channel?.ref();
      post({ type: 'call/acquire', id, key, maxCostUsd });
    });

  return {
    wrap: (model, key) => ({
      info: model.info,
      async complete(request, signal) {
        if (signal.aborted) throw new CancelledError('cancelled');
        const granted = await permit(key, boundOf(model, request), signal);
        let costUsd = 0;
        try {
          const response = await model.complete(request, signal);
          costUsd = response.costUsd;
          return response;
        } finally {
          post({ type: 'call/release', permit: granted, costUsd });
        }
      },
    }),
    onGone: (listener) => {
      if (gone) listener();
      else goneListeners.push(listener);
    },
    onOrder: (listener) => {
      onOrder = listener;
    },
  };
}
