import { errorMessage } from '../../errors';
import type { Manifest } from '../../schema/manifest';
import { expectationSources, TestPlan } from '../../schema/testPlan';
import type { PipelineDeps } from '../common/context';
import { materialize } from '../materializer';
import { dirOf, normalizeRelPath } from '../../schema/paths';

export type PlanCheck = 'passed' | 'failed' | 'unavailable';

export interface PlanValidation {
  ok: boolean;
  plan?: TestPlan;
  /** Each problem names where in the plan it is, for the operator and the proposal's `why`. */
  problems: string[];
  checks: { schema: PlanCheck; parse: PlanCheck; typecheck: PlanCheck };
}

/** Every piece of source text a plan holds, with where it is: the parse check names the place. */
function sourcesOf(plan: TestPlan): { where: string; text: string; kind: 'expression' | 'statement' }[] {
  const out: { where: string; text: string; kind: 'expression' | 'statement' }[] = [];
  plan.files.forEach((f, fi) => {
    const at = `files[${fi}] (${f.path})`;
    f.declarations.forEach((text, i) => out.push({ where: `${at} declarations[${i}]`, text, kind: 'statement' }));
    for (const [hook, stmts] of Object.entries(f.hooks ?? {}))
      stmts.forEach((text, i) => out.push({ where: `${at} hooks.${hook}[${i}]`, text, kind: 'statement' }));
    f.cases.forEach((c, ci) => {
      const cat = `${at} cases[${ci}] "${c.name}"`;
      c.arrange.forEach((text, i) => out.push({ where: `${cat} arrange[${i}]`, text, kind: 'statement' }));
      c.expect.forEach((e, ei) => {
        for (const [k, text] of Object.entries(expectationSources(e)))
          out.push({ where: `${cat} expect[${ei}].${k}`, text, kind: 'expression' });
      });
    });
  });
  return out;
}

/** A file beside the real test, so its relative imports resolve the same; never one the run keeps. */
const scratchPathFor = (path: string): string => {
  const dir = dirOf(path);
  const base = path.slice(dir.length ? dir.length + 1 : 0);
  return `${dir ? `${dir}/` : ''}__ticket-runner-check__${base}`;
};

/**
 * Validates a proposed test plan deterministically, before any operator sees it: the schema;
 * every expression and statement parses (the ParserPort); the rendered files type-check
 * against the implementation as it is now (the DiagnosticsPort, on a scratch file beside
 * each test). A check whose port is not wired is `unavailable`, and says so.
 */
export async function validateTestPlan(deps: PipelineDeps, manifest: Manifest, raw: unknown, signal: AbortSignal): Promise<PlanValidation> {
  const checks: PlanValidation['checks'] = { schema: 'failed', parse: 'unavailable', typecheck: 'unavailable' };
  const parsed = TestPlan.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `schema: ${i.path.join('.')}: ${i.message}`), checks };
  }
  checks.schema = 'passed';
  const plan = parsed.data;
  const problems: string[] = [];
  const code = new Set(manifest.scope.write.map((f) => f.path));
  for (const f of plan.files) {
    try {
      const p = normalizeRelPath(f.path);
      if (code.has(p)) problems.push(`path: ${f.path} is in scope.write: a test may not overwrite the code it checks`);
    } catch (err) {
      problems.push(`path: ${errorMessage(err)}`);
    }
  }
  if (problems.length) return { ok: false, plan, problems, checks };

  const rendered = materialize(plan, manifest.runner.framework, { language: manifest.testLanguage, moduleKind: manifest.moduleKind });
  const ext = manifest.testLanguage === 'ts' ? 'ts' : 'js';
  if (deps.parser) {
    for (const s of sourcesOf(plan)) {
      // An expression is parsed in parentheses, so `a; b` or a statement passed off as one fails.
      const snippet = s.kind === 'expression' ? `void (\n${s.text}\n);\n` : `${s.text}\n`;
      const found = await deps.parser.parse(`plan-snippet.${ext}`, snippet);
      if (found.length)
        problems.push(
          `parse: ${s.where}: the ${s.kind} ${JSON.stringify(s.text)} does not parse (${found[0]!.kind} at "${found[0]!.text}")`,
        );
    }
    for (const r of rendered) {
      const found = await deps.parser.parse(r.path, r.content);
      for (const p of found.slice(0, 3)) problems.push(`parse: rendered ${r.path}:${p.line}:${p.column} ${p.kind} "${p.text}"`);
    }
    checks.parse = problems.length ? 'failed' : 'passed';
    if (problems.length) return { ok: false, plan, problems, checks };
  }

  if (deps.diagnostics && manifest.testLanguage === 'ts') {
    const typeProblems: string[] = [];
    for (const r of rendered) {
      const scratch = scratchPathFor(normalizeRelPath(r.path));
      await deps.workspace.writeFile(scratch, r.content);
      try {
        const result = await deps.diagnostics.check([scratch], signal);
        for (const d of result.diagnostics.filter((x) => x.category === 'error' && x.file === scratch)) {
          typeProblems.push(`typecheck: rendered ${r.path}:${d.line}:${d.column} ${d.code}: ${d.message}`);
        }
      } finally {
        await deps.workspace.deleteFile(scratch);
        // The language service must forget the scratch file, or later checks would miss it as a root.
        await deps.diagnostics.check([scratch], signal).catch(() => undefined);
      }
    }
    checks.typecheck = typeProblems.length ? 'failed' : 'passed';
    problems.push(...typeProblems);
  }
  return { ok: problems.length === 0, plan, problems, checks };
}

/** The proposal's one-line account of what was checked, for the report and the request. */
export function describeValidation(v: PlanValidation): string {
  return `schema ${v.checks.schema}, parse ${v.checks.parse}, typecheck ${v.checks.typecheck}`;
}
