import { reduceRun, type AttemptState } from '../../run/reducer';
import type { CheckOutcome } from '../checks/checksStage';
import type { RunContext } from '../common/context';
import { serializeManifest } from '../manifest/manifestBuilder';
import { describeChecks, describeFailure, type DebuggerInputs, type SourceFile } from '../common/evidence';
import { pristineScope, readFiles, scopePaths } from '../common/scope';

/*
 * What the Debugger reads of a failed attempt, built from the run: the inner loop asks the
 * Debugger with it, and the routing corpus freezes it (scripts/captureRoutingCorpus.ts), so a
 * benchmark case is exactly what the product would have shown the model.
 */

/** The failure text of an attempt, rebuilt from the log so a resumed run reads the same. */
function attemptFailure(a: AttemptState): string {
  return describeFailure({
    parse: a.parse?.problems ?? [],
    diagnostics: (a.diagnostics?.diagnostics ?? []).filter((d) => d.category === 'error'),
    lint: (a.lint?.problems ?? []).filter((p) => p.severity === 'error'),
    tests: a.tests,
  });
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
    testFiles: await readFiles(ctx.deps.workspace, ctx.manifest.testFiles),
    testOutput: [describeFailure(outcome.evidence), outcome.evidence.tests?.output ?? ''].filter(Boolean).join('\n\n'),
    diagnostics: describeChecks(outcome.evidence),
    preExisting: (outcome.evidence.preExisting ?? []).map((d) => `${d.file}:${d.line}:${d.column} ${d.code}: ${d.message}`).join('\n'),
    implementation: await readFiles(ctx.deps.workspace, scopePaths(ctx)),
    pristine: await pristineScope(ctx),
    history,
  };
}
