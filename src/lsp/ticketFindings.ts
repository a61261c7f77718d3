import { isTestPath, relPathOrNone } from '../core/schema/paths';
import { authoredPathsOf } from '../core/schema/testPlan';
import { closestPath } from './closestPath';
import { importedFiles } from '../core/stages/authoring/testImports';
import { outlineTest } from '../core/stages/authoring/testOutline';
import { unresolvedRef, validateTicket, type TicketFinding, type TicketValidation } from '../core/stages/authoring/validateTicket';
import type { DiagnosticsPort } from '../core/ports/checks';
import type { WorkspacePort } from '../core/ports/workspace';
import type { Segment, Span, TicketSource } from './ticketSource';

/**
 * What a code action can do about a finding: change a scope path to the closest existing file
 * (and, with `declare`, add a declare op for the file the ticket creates), or add a test case.
 */
export type Fix = { kind: 'scopePath'; path: Segment[]; value: string; declare?: string } | { kind: 'testCase'; criterion: string };

/** A finding placed in the ticket's text. */
export interface PlacedFinding extends Omit<TicketFinding, 'severity'> {
  /** `information`: worth knowing, never a reason to refuse the ticket. */
  severity: 'error' | 'warning' | 'information';
  span: Span;
  fix?: Fix;
}

/** `validate`'s one finding for every criterion without a test; the server puts it on each criterion. */
const UNTESTED = /^no test case names acceptance criteri/;

interface RawTicket {
  refs?: unknown;
  acceptance?: { id?: unknown; text?: unknown }[];
  scope?: { write?: unknown[]; read?: unknown[] };
  ops?: unknown;
  testPlan?: { files?: { path?: unknown; cases?: { criterion?: unknown }[] }[]; authored?: unknown };
}

/**
 * Everything `ticket-runner validate` finds (the same function, the same messages), each at its
 * place in the text, plus what helps while typing: a criterion without a test on the criterion
 * itself, a duplicate id even while the schema fails elsewhere, a test-plan target that is not
 * named like a test file, a scope.write file that does not exist and that neither a "declare" op nor
 * an authored test's import says the ticket creates (with the closest existing file, from `files`, when one is close), and a `refs`
 * entry that does not resolve while another error keeps validate from resolving them.
 */
export async function ticketFindings(
  checks: { workspace: WorkspacePort; diagnostics?: DiagnosticsPort },
  ticketPath: string,
  source: TicketSource,
  signal: AbortSignal,
  files?: () => Promise<readonly string[]>,
): Promise<{ findings: PlacedFinding[]; validation: TicketValidation }> {
  const validation = await validateTicket(checks, ticketPath, source.text, signal);
  const raw = (source.value && typeof source.value === 'object' ? source.value : {}) as RawTicket;
  const acceptance = list(raw.acceptance) as NonNullable<RawTicket['acceptance']>;
  const planFiles = list(raw.testPlan?.files) as NonNullable<NonNullable<RawTicket['testPlan']>['files']>;
  const out: PlacedFinding[] = [];
  const at = (path: string) => source.rangeOf(path);

  for (const f of validation.findings) {
    if (f.path === '$.testPlan' && UNTESTED.test(f.message)) continue;
    const scopeRead = /^\$\.scope\.read\[(\d+)\]$/.exec(f.path);
    const value = scopeRead ? raw.scope?.read?.[Number(scopeRead[1])] : undefined;
    const fix: Fix | undefined =
      scopeRead && typeof value === 'string' && /does not exist/.test(f.message)
        ? { kind: 'scopePath', path: ['scope', 'read', Number(scopeRead[1])], value }
        : undefined;
    out.push({ ...f, span: at(f.path), fix });
  }

  // A criterion no case names, on the criterion: the gate's fact when the plan names some
  // criteria (validate's warning, word for word), a hint when it names none. A plan of test files
  // the author wrote only has no case to name one: the hint would ask for a rendered case it does not want.
  const cases = planFiles.flatMap((f) => list(f?.cases) as { criterion?: unknown }[]);
  const named = new Set(cases.map((c) => c?.criterion).filter((c): c is string => typeof c === 'string'));
  const authoredOnly = !planFiles.length && authoredPathsOf(raw.testPlan?.authored).length > 0;
  for (const [i, a] of acceptance.entries()) {
    if (typeof a?.id !== 'string' || named.has(a.id) || authoredOnly) continue;
    const warning = named.size > 0;
    out.push({
      path: `$.acceptance[${i}].id`,
      severity: warning ? 'warning' : 'information',
      message: warning
        ? `no test case names acceptance criterion ${a.id}: the test reviewer gate will fail`
        : `no test case names acceptance criterion ${a.id}: give a case "criterion": "${a.id}" so the test reviewer gate can hold the plan to it`,
      span: at(`$.acceptance[${i}].id`),
      fix: { kind: 'testCase', criterion: a.id },
    });
  }

  // Duplicate ids, even while another part of the ticket fails the schema (zod then stops short of them).
  const seen = new Map<string, number>();
  for (const [i, a] of acceptance.entries()) {
    if (typeof a?.id !== 'string') continue;
    const where = `$.acceptance[${i}].id`;
    if (seen.has(a.id) && !out.some((f) => f.path === where))
      out.push({ path: where, severity: 'error', message: `duplicate acceptance id "${a.id}"`, span: at(where) });
    seen.set(a.id, i);
  }

  for (const [i, f] of planFiles.entries()) {
    const where = `$.testPlan.files[${i}].path`;
    if (typeof f?.path !== 'string' || out.some((x) => x.path === where)) continue;
    const p = relPathOrNone(f.path);
    if (p && !isTestPath(p)) {
      out.push({
        path: where,
        severity: 'warning',
        message: `testPlan.files[${i}].path "${p}" is not named like a test file (*.test.*, *.spec.*, or under test/, tests/ or __tests__/): the workspace's test runner may never run it`,
        span: at(where),
      });
    }
  }

  // A file the ticket creates is declared, or imported by a test the author wrote first, so a
  // mistyped path is not taken for a new file. Read raw: the op's place in the schema is not what decides this.
  const declared = new Set([
    ...list(raw.ops).flatMap((o) => {
      const op = o as { op?: unknown; file?: unknown } | undefined;
      const file = op?.op === 'declare' && typeof op.file === 'string' ? relPathOrNone(op.file) : undefined;
      return file ? [file] : [];
    }),
    ...(await importedByAuthored(checks.workspace, raw.testPlan?.authored)),
  ]);
  for (const [i, w] of list(raw.scope?.write).entries()) {
    const where = `$.scope.write[${i}]`;
    if (typeof w !== 'string' || out.some((x) => x.path === where)) continue;
    const p = relPathOrNone(w);
    if (!p || declared.has(p) || (await checks.workspace.exists(p))) continue;
    const near = files && closestPath(p, await files());
    out.push({
      path: where,
      severity: 'error',
      message: `scope.write[${i}] "${p}" does not exist: fix the path${near ? ` (did you mean ${near}?)` : ''}, or, if the ticket creates it, list what it will export: the ticket adds those declarations to it before the Coder starts`,
      span: at(where),
      fix: { kind: 'scopePath', path: ['scope', 'write', i], value: w, declare: p },
    });
  }
  // validate resolves refs only once every other error is fixed; as you type, they are checked anyway.
  const port = checks.diagnostics;
  if (port && !validation.rendered.length) {
    for (const [i, r] of list(raw.refs).entries()) {
      const ref = r as { symbol?: unknown; file?: unknown } | undefined;
      const where = `$.refs[${i}]`;
      if (typeof ref?.symbol !== 'string' || typeof ref.file !== 'string' || out.some((x) => x.path.startsWith(where))) continue;
      const file = relPathOrNone(ref.file);
      if (!file || !(await checks.workspace.exists(file))) continue;
      if ((await port.resolveSymbol(file, ref.symbol)) === null)
        out.push({ path: where, severity: 'error', message: unresolvedRef(i, ref.symbol, file), span: at(where) });
    }
  }
  return { findings: out, validation };
}

/** A value the author may still be typing: an array, or nothing to walk. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The files the ticket's authored tests import that are not written yet: the test names them, so they are no typo. */
async function importedByAuthored(workspace: WorkspacePort, authored: unknown): Promise<string[]> {
  const out: string[] = [];
  for (const p of authoredPathsOf(authored)) {
    const text = await workspace.readFile(p);
    if (!text) continue;
    for (const f of await importedFiles(workspace, p, outlineTest(text).imports)) if (!f.exists) out.push(f.path);
  }
  return out;
}
