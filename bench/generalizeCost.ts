/**
 * What generalize costs: time to verdict on BLOG-14 (blog-api, node:test, one case held out)
 * with the held-out cases and without (`generalize: false`), the same general answer passing
 * on attempt 1 both ways, so that the runs differ only in the held-out case. The CLI runs the
 * ticket with the default gates and the sandbox, started outside the workspace, in
 * alternation; the ratio is of medians. `tsx bench/generalizeCost.ts` prints it alone.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { copyFixture } from '../test/support/tempWorkspace';
import { median, round } from './measure';
import { ms, type Row } from './report';

const REPO = path.resolve(__dirname, '..');
const TICKET = '.tickets/BLOG-14.ticket.json';

export interface GeneralizeCost {
  withMs: number[];
  withoutMs: number[];
  /** Held-out cases that judged the runs with generalize (each run's log, summed). */
  heldOutCases: number;
  /** Median with ÷ median without. */
  ratio: number;
}

/** The recorded script with its general answer first: attempt 1 passes, held-out case and all. */
function generalFirst(root: string): void {
  const file = path.join(root, '.tickets', 'BLOG-14.script.json');
  const script = JSON.parse(readFileSync(file, 'utf8')) as {
    coder: { expect: object; files: object }[];
    debugger: unknown[];
    reviewer: { expect: object }[];
    testReviewer: { expect: object }[];
  };
  const at1 = <T extends { expect: object }>(a: T): T => ({ ...a, expect: { attempt: 1 } });
  writeFileSync(
    file,
    JSON.stringify(
      {
        ...script,
        coder: [at1(script.coder[1]!)],
        debugger: [],
        reviewer: script.reviewer.map(at1),
        testReviewer: script.testReviewer.map(at1),
      },
      null,
      2,
    ),
  );
}

async function runOnce(generalize: boolean): Promise<{ ms: number; heldOutCases: number }> {
  const ws = copyFixture();
  try {
    generalFirst(ws.root);
    if (!generalize) {
      const file = path.join(ws.root, TICKET);
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), generalize: false }, null, 2));
    }
    const t = performance.now();
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [path.join(REPO, 'dist', 'cli.js'), 'run', TICKET, '--workspace', ws.root, '--model', 'scripted'],
        { cwd: tmpdir(), stdio: 'ignore' },
      );
      child.on('error', reject);
      child.on('close', resolve);
    });
    const took = performance.now() - t;
    const runs = path.join(ws.root, '.ticket-runner', 'runs');
    const events = readFileSync(path.join(runs, readdirSync(runs)[0]!, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; outcome?: string; result?: { cases: unknown[] } });
    const outcome = events.find((e) => e.type === 'run.finished')?.outcome;
    if (code !== 0 || outcome !== 'passed')
      throw new Error(`BLOG-14 (generalize ${generalize ? 'on' : 'off'}) ended ${outcome ?? `exit ${String(code)}`}, not passed`);
    return {
      ms: took,
      heldOutCases: events.filter((e) => e.type === 'heldOut.ran').reduce((n, e) => n + (e.result?.cases.length ?? 0), 0),
    };
  } finally {
    ws.dispose();
  }
}

export async function measureGeneralizeCost(runs: number): Promise<GeneralizeCost> {
  // One of each first, out of the figure: tsx's cache and the file system's.
  await runOnce(false);
  await runOnce(true);
  const withMs: number[] = [];
  const withoutMs: number[] = [];
  let heldOutCases = 0;
  for (let i = 0; i < runs; i++) {
    withoutMs.push((await runOnce(false)).ms);
    const on = await runOnce(true);
    withMs.push(on.ms);
    heldOutCases += on.heldOutCases;
  }
  if (heldOutCases !== runs) throw new Error(`the runs with generalize were judged by ${heldOutCases} held-out cases, not one each`);
  return { withMs, withoutMs, heldOutCases, ratio: round(median(withMs) / median(withoutMs), 2) };
}

export function generalizeCostRow(g: GeneralizeCost): Row {
  return {
    figure: 'Time to verdict with generalize ÷ without, BLOG-14 (one held-out case, node:test, default gates)',
    measured: `with ${ms(median(g.withMs))} vs without ${ms(median(g.withoutMs))}, median of ${g.withMs.length} alternating runs`,
    ratio: g.ratio,
    target: '≤ 1.15',
    met: g.ratio <= 1.15,
  };
}

if (require.main === module) {
  measureGeneralizeCost(3).then(
    (g) =>
      process.stdout.write(
        `${JSON.stringify({ ...generalizeCostRow(g), withMs: g.withMs.map((n) => round(n)), withoutMs: g.withoutMs.map((n) => round(n)) })}\n`,
      ),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
