import type { RunContext } from './context';
import { runOracleTests } from './oracle';
import { impossibleExpectations, renderTypeProbe } from './typeProbe';
import type { FailureEvidence } from './prompts';

export interface CheckOutcome {
  passed: boolean;
  evidence: FailureEvidence;
}

const elapsed = (t: number) => Date.now() - t;

/**
 * The post-write checks, in order: parse, diagnostics (with structural auto-fix first),
 * lint, tests. Each is an event. A check whose port is not wired is not in the pipeline.
 * Malformed code stops the chain: nothing after the parse can say anything useful.
 */
export async function runChecks(ctx: RunContext, attempt: number, changed: string[]): Promise<CheckOutcome> {
  const { deps, log, manifest, signal } = ctx;
  const evidence: FailureEvidence = { parse: [], diagnostics: [], lint: [] };
  const codeFiles = changed.filter((f) => /\.[cm]?[jt]sx?$/.test(f));

  if (deps.parser) {
    const t = Date.now();
    for (const file of codeFiles) {
      const content = await deps.workspace.readFile(file);
      if (content !== null) evidence.parse.push(...(await deps.parser.parse(file, content)));
    }
    await log.emit({ type: 'check.parsed', attempt, ok: evidence.parse.length === 0, problems: evidence.parse, durationMs: elapsed(t) });
    if (evidence.parse.length) return { passed: false, evidence };
  }

  if (deps.diagnostics && codeFiles.length) {
    const t = Date.now();
    const inScope = new Set(manifest.scope.write.map((f) => f.path));
    const before = new Map<string, string | null>();
    for (const f of inScope) before.set(f, await deps.workspace.readFile(f));
    const fixes = await deps.diagnostics.autofix(codeFiles, (p) => inScope.has(p), signal);
    if (fixes.applied.length || fixes.refused.length) {
      await log.emit({ type: 'check.autofixed', attempt, applied: fixes.applied, refused: fixes.refused });
      evidence.refusedFixes = fixes.refused;
      const written = [];
      for (const [path, old] of before) {
        const now = await deps.workspace.readFile(path);
        if (now !== null && now !== old) {
          written.push({ path, before: old === null ? null : await log.putBlob(old), after: await log.putBlob(now) });
        }
      }
      if (written.length) await log.emit({ type: 'files.written', attempt, by: 'autofix', files: written });
    }
    // The rendered tests are always checked: their type errors against the new code are
    // the machine fact behind "test is wrong", and a just-rendered file is new to the service.
    const result = await deps.diagnostics.check([...new Set([...codeFiles, ...manifest.testFiles])], signal);
    evidence.diagnostics = result.diagnostics.filter((d) => d.category === 'error');
    await log.emit({
      type: 'check.diagnosed',
      attempt,
      ok: evidence.diagnostics.length === 0,
      checkedFiles: result.checkedFiles,
      diagnostics: result.diagnostics,
      durationMs: elapsed(t),
    });
  }

  if (deps.lint) {
    const r = await deps.lint.lint(codeFiles, signal);
    evidence.lint = r.problems.filter((p) => p.severity === 'error');
    await log.emit({ type: 'check.linted', attempt, status: r.status, problems: r.problems, detail: r.detail });
  }

  // Tests run even after type errors: tsx strips types, and a runtime failure is evidence too.
  const { result: tests, tampered } = await runOracleTests(ctx, attempt);
  evidence.tests = tests;
  if (tampered.length) evidence.tampered = tampered;
  await log.emit({ type: 'tests.ran', attempt, result: tests });

  const passed = evidence.diagnostics.length === 0 && evidence.lint.length === 0 && tests.status === 'passed';
  if (!passed) await probeTests(ctx, evidence);
  return { passed, evidence };
}

/**
 * After a failure, type-probes the rendered tests' equality expectations (in memory) so the
 * router can tell a test that expects an impossible value from a code bug.
 */
async function probeTests(ctx: RunContext, evidence: CheckOutcome['evidence']): Promise<void> {
  const { deps, manifest, signal } = ctx;
  if (!deps.diagnostics?.probe || manifest.testLanguage !== 'ts') return;
  const found = [];
  for (const file of manifest.testPlan.files) {
    const probe = renderTypeProbe(file);
    if (!probe) continue;
    const diagnostics = await deps.diagnostics.probe(probe.path, probe.content, signal);
    found.push(...impossibleExpectations(probe, diagnostics).map((x) => ({ file: file.path, caseName: x.caseName, actual: x.actual, expected: x.expected, code: x.code, message: x.message })));
  }
  if (found.length) evidence.impossibleExpectations = found;
}
