import { performance } from 'node:perf_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { OverlayCandidateChecks } from '../src/node/candidates/overlayCandidateChecks';
import type { TestRunnerPort } from '../src/core/ports/checks';
import { median } from './measure';
import { modulePath, type GeneratedRepo } from './genRepo';
import { ms, type Row } from './report';

export interface CandidateCopyCost {
  lines: number;
  files: number;
  /** Each call copying the whole workspace (the old way, `reuse: false`): open, then dispose. */
  fullCopyMs: number[];
  /** The kept copy's first call: it makes the copy. */
  keptFirstMs: number;
  /** The kept copy's later calls: bring the copy back to the workspace, write the candidate, restore. */
  keptMs: number[];
  /** median(kept) ÷ median(full copy), measured in this run. */
  ratio: number;
}

/** The tree is the subject: the checks the wiring would bind to the copy are not built. */
const noChecks = () => ({ tests: {} as TestRunnerPort });

/**
 * Rung 4's cost per run_tests call on a large repo, before and after keeping the scratch
 * copy: the same candidate file, the same workspace, `calls` calls each way. Between two calls
 * the run writes a file of the real workspace (an attempt's write), so the kept copy has
 * something to bring over, as it has in a run.
 */
export async function measureCandidateCopy(repo: GeneratedRepo, calls: number): Promise<CandidateCopyCost> {
  const signal = new AbortController().signal;
  const target = modulePath(Math.floor(repo.modules / 2));
  const written = modulePath(Math.floor(repo.modules / 3));
  const original = readFileSync(path.join(repo.root, written), 'utf8');
  const candidate = (n: number) => [
    { path: target, content: `${readFileSync(path.join(repo.root, target), 'utf8')}\nexport const candidate${n} = ${n};\n` },
  ];
  const call = async (port: OverlayCandidateChecks, n: number) => {
    writeFileSync(path.join(repo.root, written), `${original}\nexport const attempt${n} = ${n};\n`);
    const t = performance.now();
    const overlay = await port.open(candidate(n), signal);
    await overlay.dispose();
    return performance.now() - t;
  };
  const full = new OverlayCandidateChecks({ root: repo.root, makeChecks: noChecks, reuse: false });
  const kept = new OverlayCandidateChecks({ root: repo.root, makeChecks: noChecks });
  try {
    const fullCopyMs: number[] = [];
    for (let n = 0; n < calls; n++) fullCopyMs.push(await call(full, n));
    const keptFirstMs = await call(kept, 0);
    const keptMs: number[] = [];
    for (let n = 1; n <= calls; n++) keptMs.push(await call(kept, n));
    return { lines: repo.lines, files: repo.files, fullCopyMs, keptFirstMs, keptMs, ratio: median(keptMs) / median(fullCopyMs) };
  } finally {
    await kept.dispose();
    writeFileSync(path.join(repo.root, written), original);
  }
}

export function candidateCopyRow(c: CandidateCopyCost): Row {
  return {
    figure: `run_tests scratch copy per call, ${c.lines.toLocaleString('en-US')} lines: kept copy ÷ whole copy`,
    measured: `kept copy ${ms(median(c.keptMs))} (median of ${c.keptMs.length} calls: bring the copy back, write the candidate, restore; its first call makes the copy, ${ms(c.keptFirstMs)}) vs a whole copy per call ${ms(median(c.fullCopyMs))} (median of ${c.fullCopyMs.length}), ${c.files.toLocaleString('en-US')} files`,
    ratio: c.ratio,
    target: '≤ 0.5',
    met: c.ratio <= 0.5,
  };
}
