/**
 * How long a run keeps Ticket Runner's own thread from answering anything: the CLI's run of a
 * ticket, in process (the scripted model, the default gates, the sandbox as the machine allows),
 * with a drift probe on the event loop. The longest stall is what an editor window would freeze
 * for when the same work runs in its extension host. BLOG-1 of blog-api, and BLOG-12, a ticket on
 * the fixture's 2,275-line module. `tsx bench/eventLoopStall.ts [ticket...]` prints it alone.
 */
import { performance } from 'node:perf_hooks';
import { startRun } from '../src/core';
import { resolveRunSettings } from '../src/core/loop/runSettings';
import { wireNodeDeps } from '../src/node/wire';
import { disposeDeps } from '../src/node/runResources';
import { stallProbe, TICK_MS, type Stall } from '../test/support/stallProbe';
import { copyFixture } from '../test/support/tempWorkspace';
import { round } from './measure';
import { ms, type Row } from './report';

const TICKETS = ['BLOG-1', 'BLOG-12'] as const;
/** The target: a window that stops answering for longer feels frozen. */
export const STALL_TARGET_MS = 250;

export interface TicketStall {
  ticket: string;
  outcome: string;
  runMs: number;
  /** The longest stalls, longest first. */
  longest: Stall[];
  sandbox: string;
}

export interface EventLoopStall {
  tickets: TicketStall[];
  /** The longest stall of all the tickets' runs. */
  worstMs: number;
}

async function runOne(ticket: string): Promise<TicketStall> {
  const fixture = copyFixture();
  const ticketPath = `.tickets/${ticket}.ticket.json`;
  // What `ticket-runner run --model scripted` wires: the core's default settings, gates included.
  const settings = resolveRunSettings({});
  let lastEvent = 'wiring';
  const probe = stallProbe(() => lastEvent);
  try {
    const t = performance.now();
    const deps = await wireNodeDeps({
      workspaceRoot: fixture.root,
      model: 'scripted',
      ticketPath,
      env: process.env,
      onEvent: (e) => {
        lastEvent = e.type;
      },
      testTimeoutMs: settings.testTimeoutMs,
      gates: settings.gates,
      requireSandbox: settings.requireSandbox,
      passEnv: settings.passEnv,
    });
    let result: Awaited<ReturnType<typeof startRun>>;
    try {
      result = await startRun(deps, {
        ticketPath,
        budget: settings.budget,
        recovery: settings.recovery,
        signal: new AbortController().signal,
      });
    } finally {
      lastEvent = 'disposing';
      await disposeDeps(deps);
    }
    const runMs = performance.now() - t;
    const longest = probe.stop().slice(0, 5);
    const reason = result.state.finished?.reason;
    return {
      ticket,
      outcome: reason ? `${result.state.status} (${reason.kind})` : result.state.status,
      runMs: round(runMs),
      longest,
      sandbox: deps.sandbox?.on ? 'on' : `off: ${deps.sandbox?.detail ?? ''}`,
    };
  } finally {
    probe.stop();
    fixture.dispose();
  }
}

export async function measureEventLoopStall(only: readonly string[] = TICKETS): Promise<EventLoopStall> {
  const tickets: TicketStall[] = [];
  for (const ticket of only) tickets.push(await runOne(ticket));
  return { tickets, worstMs: Math.max(0, ...tickets.flatMap((t) => t.longest.map((s) => s.ms))) };
}

export function eventLoopStallRow(o: EventLoopStall): Row {
  const each = o.tickets
    .map(
      (t) =>
        `${t.ticket} ${ms(t.longest[0]?.ms ?? 0)}${t.longest[0] ? ` (during ${t.longest[0].during})` : ''}, run ${ms(t.runMs)}, ${t.outcome}`,
    )
    .join('; ');
  return {
    figure: 'Longest event-loop stall of a run in process (scripted model, default gates)',
    measured: `${each}; a ${TICK_MS} ms drift probe on the run's thread`,
    target: `≤ ${STALL_TARGET_MS} ms`,
    met: o.worstMs <= STALL_TARGET_MS,
  };
}

if (require.main === module) {
  // `tsx bench/eventLoopStall.ts BLOG-12` runs the tickets named.
  const named = process.argv.slice(2);
  measureEventLoopStall(named.length ? named : TICKETS).then(
    (o) => {
      process.stdout.write(`${JSON.stringify(o, null, 2)}\n${JSON.stringify(eventLoopStallRow(o))}\n`);
      // A section leaves nothing running; what it left must not keep the process.
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
