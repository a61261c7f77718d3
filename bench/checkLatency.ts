import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLanguageServiceDiagnostics } from '../src/node/diagnostics/languageService';
import { importersOf, moduleName, modulePath, moduleSource, type GeneratedRepo } from './genRepo';
import { median, timed } from './measure';

export interface EditSample {
  file: string;
  /** Files check() re-checked: the edited one and its direct importers (its folder's barrel among them). */
  checkedFiles: number;
  errors: number;
  ms: number;
}

export interface CheckLatency {
  lines: number;
  modules: number;
  files: number;
  tscRunsMs: number[];
  tscMedianMs: number;
  /**
   * The adapter's first check (one file, far from the edits): it builds the program the edits
   * then reuse, as a run's first check does. The full check (tsc) already proved the repo clean.
   */
  lsWarmupMs: number;
  edits: EditSample[];
  incrementalMedianMs: number;
  /** incremental / full, both measured in this run. */
  ratio: number;
}

/** `tsc --noEmit` on the whole project, with the workspace's own TypeScript, as a user would run it. */
function runTsc(root: string): number {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const t = performance.now();
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', root], { encoding: 'utf8' });
  const ms = performance.now() - t;
  // A repo that does not type-check would time error reporting, not checking.
  if (r.status !== 0) throw new Error(`tsc --noEmit failed on the generated repo (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return ms;
}

/**
 * One edit: a changed function body and a new export, so the file's shape changes and its
 * importers really must be checked again. Numbered, so every edit is new text.
 */
function editedSource(i: number, n: number): string {
  return (
    moduleSource(i).replace(
      'return Math.min(options.limit, Math.max(0, value));',
      `return Math.min(options.limit, Math.max(${n} - ${n}, value));`,
    ) + `export const ${moduleName(i)}_EDIT_${n} = ${n};\n`
  );
}

/**
 * Warm incremental check latency against a full `tsc --noEmit` of the same repo. tsc runs
 * before and after the edits, so a change in the machine's load lands on both sides.
 */
export async function measureCheckLatency(
  repo: GeneratedRepo,
  opts: { edits: number; tscRuns: number; /** The full check, timed; `tsc --noEmit` by default. */ fullCheck?: () => Promise<number> },
): Promise<CheckLatency> {
  const full = opts.fullCheck ?? (() => Promise.resolve(runTsc(repo.root)));
  const tscRunsMs: number[] = [await full()];
  const ls = createLanguageServiceDiagnostics(repo.root);
  const signal = new AbortController().signal;
  const edits: EditSample[] = [];
  let lsWarmupMs: number;
  try {
    const warm = await timed(() => ls.check([modulePath(0)], signal));
    lsWarmupMs = warm.ms;
    const warmErrors = warm.value.diagnostics.filter((d) => d.category === 'error');
    if (warmErrors.length)
      throw new Error(`the generated repo has ${warmErrors.length} error(s) in the language service: ${warmErrors[0]!.message}`);
    for (let n = 0; n < opts.edits; n++) {
      // Spread over the repo, away from its first modules (the prompt-size ticket's scope).
      const i = Math.floor(((n + 0.5) * repo.modules) / opts.edits);
      const file = modulePath(i);
      writeFileSync(path.join(repo.root, file), editedSource(i, n + 1));
      const r = await timed(() => ls.check([file], signal));
      const expected = importersOf(i, repo.modules).length + 2;
      if (r.value.checkedFiles.length < expected)
        throw new Error(`check(${file}) covered ${r.value.checkedFiles.length} file(s), expected at least ${expected}`);
      edits.push({
        file,
        checkedFiles: r.value.checkedFiles.length,
        errors: r.value.diagnostics.filter((d) => d.category === 'error').length,
        ms: r.ms,
      });
    }
  } finally {
    ls.dispose();
  }
  for (let k = 1; k < opts.tscRuns; k++) tscRunsMs.push(await full());
  const tscMedianMs = median(tscRunsMs);
  const incrementalMedianMs = median(edits.map((e) => e.ms));
  return {
    lines: repo.lines,
    modules: repo.modules,
    files: repo.files,
    tscRunsMs,
    tscMedianMs,
    lsWarmupMs,
    edits,
    incrementalMedianMs,
    ratio: incrementalMedianMs / tscMedianMs,
  };
}
