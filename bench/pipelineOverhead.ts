import { performance } from 'node:perf_hooks';
import { startRun } from '../src/core';
import type { PipelineDeps } from '../src/core/stages/common/context';
import { wireNodeDeps } from '../src/node/wire';
import { copyFixture } from '../test/support/tempWorkspace';
import { median, timePort, type PortTimes } from './measure';

const TICKET = '.tickets/BLOG-1.ticket.json';

export interface OverheadSample {
  /** startRun, end to end: manifest, rendered tests, two Coder attempts, the Debugger, the router. */
  totalMs: number;
  /** The run's checks and tests: the wall time of the tests, diagnostics, parser and lint ports. */
  checksMs: { tests: number; diagnostics: number; parse: number; lint: number; sum: number };
  /** The fixture has no ESLint config, so lint is skipped and costs next to nothing. */
  lintStatus: string;
  ratio: number;
  outcome: string;
  /** Wall time per port method, and what is left for the core itself. */
  profile: Record<string, { ms: number; calls: number }>;
}

export interface PipelineOverhead {
  ticket: string;
  samples: OverheadSample[];
  /** The sample with the median ratio, so its figures belong together. */
  median: OverheadSample;
}

/** Every port the core awaits, timed; the scripted model answers at once (zero model latency). */
function timedDeps(deps: PipelineDeps, times: PortTimes): PipelineDeps {
  return {
    ...deps,
    workspace: timePort('workspace', deps.workspace, times),
    store: timePort('store', deps.store, times),
    model: timePort('model', deps.model, times),
    tests: timePort('tests', deps.tests, times),
    // With the coverage gate on, the run that judges the tests measures them through the coverage port: still test work.
    gates: deps.gates && { ...deps.gates, coverage: deps.gates.coverage && timePort('tests.coverage', deps.gates.coverage, times) },
    parser: deps.parser && timePort('parser', deps.parser, times),
    diagnostics: deps.diagnostics && timePort('diagnostics', deps.diagnostics, times),
    lint: deps.lint && timePort('lint', deps.lint, times),
  };
}

async function sample(): Promise<OverheadSample> {
  const fixture = copyFixture();
  const times: PortTimes = new Map();
  const deps = await wireNodeDeps({ workspaceRoot: fixture.root, model: 'scripted', ticketPath: TICKET, env: {} });
  try {
    const t = performance.now();
    const result = await startRun(timedDeps(deps, times), { ticketPath: TICKET, signal: new AbortController().signal });
    const totalMs = performance.now() - t;
    const { events } = await deps.store.load(result.runId);
    let lintStatus = 'not run';
    for (const e of events) if (e.type === 'check.linted') lintStatus = e.detail ? `${e.status}: ${e.detail}` : e.status;
    // The tools' own time, from the ports: every test run (the ticket's tests and the project's
    // own as the regression) and every diagnostics call (the baseline before the first write
    // included), so a new kind of check counts as check work, never as the pipeline's.
    const portSum = (prefix: string) => [...times].filter(([k]) => k.startsWith(prefix)).reduce((n, [, v]) => n + v.ms, 0);
    const tests = portSum('tests.');
    const diagnostics = portSum('diagnostics.');
    const parse = portSum('parser.');
    const lint = portSum('lint.');
    const sum = tests + diagnostics + parse + lint;
    const portMs = [...times.values()].reduce((n, v) => n + v.ms, 0);
    const profile = Object.fromEntries([...times].sort(([a], [b]) => a.localeCompare(b)));
    profile['core (not in a port)'] = { ms: totalMs - portMs, calls: 0 };
    return {
      totalMs,
      checksMs: { tests, diagnostics, parse, lint, sum },
      lintStatus,
      ratio: totalMs / sum,
      outcome: `${result.state.status} after ${result.state.attempts.length} attempt(s)`,
      profile,
    };
  } finally {
    deps.diagnostics?.dispose?.();
    fixture.dispose();
  }
}

/** BLOG-1 on fresh fixture copies, with the scripted model, against its own checks and tests. */
export async function measurePipelineOverhead(runs: number): Promise<PipelineOverhead> {
  const samples: OverheadSample[] = [];
  for (let k = 0; k < runs; k++) samples.push(await sample());
  const mid = median(samples.map((s) => s.ratio));
  const chosen = samples.reduce((best, s) => (Math.abs(s.ratio - mid) < Math.abs(best.ratio - mid) ? s : best));
  return { ticket: TICKET, samples, median: chosen };
}
