import type { CodeDiagnostic } from '../../schema/checks';
import type { TestFile } from '../../schema/testPlan';
import { importLines, sourceText, statement } from '../materializer/source';

/**
 * The type probe behind the second "test is wrong" fact: a test that expects a value its
 * subject's declared type cannot hold. node:assert's strictEqual takes `unknown`, so such a
 * test type-checks and simply fails; the probe restates every equality expectation as a call
 * whose second argument must be assignable to the first's type, and type-checks that in
 * memory. An error there is a machine fact about the test, not about the code.
 */

const PROBE_FN = '__ticketRunnerExpects';

export interface ProbeSite {
  line: number;
  caseName: string;
  actual: string;
  expected: string;
}

export interface TypeProbe {
  path: string;
  content: string;
  sites: ProbeSite[];
}

/** The probe of one rendered TypeScript test file, or null when it has no equality to probe. */
export function renderTypeProbe(file: TestFile): TypeProbe | null {
  const lines: string[] = [
    '// Ticket Runner type probe: in memory only, never written.',
    ...importLines(file.imports, 'esm'),
    ...file.declarations.map(statement),
    // NoInfer: T comes from the actual value alone, so the expected one is checked against it.
    `declare function ${PROBE_FN}<T>(actual: T, expected: NoInfer<T>): void;`,
  ];
  const sites: ProbeSite[] = [];
  for (const c of file.cases) {
    const equalities = c.expect.filter((e) => e.kind === 'equal' && !e.not);
    if (!equalities.length) continue;
    lines.push('export async function probe_' + sites.length + '(): Promise<void> {');
    for (const s of c.arrange) lines.push(...sourceText(statement(s)).split('\n'));
    for (const e of equalities) {
      if (e.kind !== 'equal') continue;
      sites.push({ line: lines.length + 1, caseName: c.name, actual: e.actual, expected: e.expected });
      lines.push(`${PROBE_FN}(${e.actual}, ${e.expected});`);
    }
    lines.push('}');
  }
  if (!sites.length) return null;
  return { path: file.path.replace(/(\.[cm]?tsx?)$/, '.probe$1'), content: lines.join('\n') + '\n', sites };
}

/** The probe sites whose expected value the declared type rejects. */
export function impossibleExpectations(probe: TypeProbe, diagnostics: CodeDiagnostic[]): (ProbeSite & { message: string; code: string })[] {
  const out = [];
  for (const site of probe.sites) {
    const d = diagnostics.find((x) => x.category === 'error' && x.line === site.line && /TS23(22|45)/.test(x.code));
    if (d) out.push({ ...site, message: d.message, code: d.code });
  }
  return out;
}
