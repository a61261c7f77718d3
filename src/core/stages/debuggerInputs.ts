import { baselineOf } from '../run/baseline';
import { reduceRun, type AttemptState } from '../run/reducer';
import type { CheckOutcome } from './checks/checksStage';
import type { RunContext } from './context';
import { serializeManifest } from './manifestBuilder';
import { describeChecks, describeFailure, type DebuggerInputs, type SourceFile } from './prompts';

/*
 * What the Debugger reads of a failed attempt, built from the run: the inner loop asks the
 * Debugger with it, and the routing corpus freezes it (scripts/captureRoutingCorpus.ts), so a
 * benchmark case is exactly what the product would have shown the model.
 */

export async function readAll(ctx: RunContext, paths: string[]): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for (const path of paths) {
    const content = await ctx.deps.workspace.readFile(path);
    if (content !== null) out.push({ path, content });
  }
  return out;
}

export const scopePaths = (ctx: RunContext) => [...ctx.manifest.scope.write, ...ctx.manifest.scope.read].map((f) => f.path);

/** The failure text of an attempt, rebuilt from the log so a resumed run reads the same. */
function attemptFailure(a: AttemptState): string {
  return describeFailure({
    parse: a.parse?.problems ?? [],
    diagnostics: (a.diagnostics?.diagnostics ?? []).filter((d) => d.category === 'error'),
    lint: (a.lint?.problems ?? []).filter((p) => p.severity === 'error'),
    tests: a.tests,
  });
}

/** The scope's files as they were before the run's first write of each (a file the run created is absent). */
export async function pristineScope(ctx: RunContext): Promise<SourceFile[]> {
  const baseline = baselineOf(ctx.log.events);
  const out: SourceFile[] = [];
  for (const path of scopePaths(ctx)) {
    const base = baseline.get(path);
    if (base === null) continue;
    const content = base === undefined ? await ctx.deps.workspace.readFile(path) : await ctx.log.getBlob(base);
    if (content !== null) out.push({ path, content });
  }
  return out;
}

/** The Debugger's fixed inputs: manifest, tests, latest output, latest code, history. Scope files only. */
export async function debuggerInputs(ctx: RunContext, attempt: number, outcome: CheckOutcome): Promise<DebuggerInputs> {
  const state = reduceRun(ctx.log.runId, ctx.log.events);
  const history = [];
  for (const a of state.attempts.filter((x) => x.n < attempt)) {
    const files: SourceFile[] = [];
    for (const f of a.files) files.push({ path: f.path, content: await ctx.log.getBlob(f.hash) });
    history.push({ attempt: a.n, files, failure: attemptFailure(a) });
  }
  return {
    manifest: serializeManifest(ctx.manifest),
    testFiles: await readAll(ctx, ctx.manifest.testFiles),
    testOutput: [describeFailure(outcome.evidence), outcome.evidence.tests?.output ?? ''].filter(Boolean).join('\n\n'),
    diagnostics: describeChecks(outcome.evidence),
    preExisting: (outcome.evidence.preExisting ?? []).map((d) => `${d.file}:${d.line}:${d.column} ${d.code}: ${d.message}`).join('\n'),
    implementation: await readAll(ctx, scopePaths(ctx)),
    pristine: await pristineScope(ctx),
    history,
  };
}

