import type { CodeDiagnostic, TestRunResult } from '../../schema/checks';
import type { MachineFact } from '../../schema/correction';
import type { Manifest } from '../../schema/manifest';
import type { RouteDecision, RouterInputs } from '../common/routing';
import { REPEAT_SIMILARITY, similarity } from './repeatGuard';

const errorsOnly = (ds: CodeDiagnostic[]): CodeDiagnostic[] => ds.filter((d) => d.category === 'error');

/**
 * The same error of a rendered test in two checks: file, code and line. The Coder cannot edit a
 * rendered test, so its lines stand still; the message is left out because the editor's
 * TypeScript and the headless one may word it differently.
 */
const sameError = (a: CodeDiagnostic, b: CodeDiagnostic): boolean => a.file === b.file && a.code === b.code && a.line === b.line;

/**
 * test is wrong: the rendered test itself has a type error against the ticket's types, or
 * it expects a value its subject's declared type cannot hold (the type probe). Both facts are
 * about the code as the ticket left it, before the Coder wrote anything: a test error that
 * only the Coder's change brought in is the code's fault (a Coder that breaks an API the test
 * uses must not get its test rewritten to match).
 */
function testFact(i: RouterInputs): MachineFact | undefined {
  const before = i.testErrorsBeforeCoder ?? [];
  const d = errorsOnly(i.diagnostics).find((x) => i.manifest.testFiles.includes(x.file) && before.some((b) => sameError(b, x)));
  if (d) return { kind: 'testTypeError', detail: `${d.file}:${d.line} ${d.code}: ${d.message}`, file: d.file, line: d.line, code: d.code };
  const x = i.impossibleExpectations?.[0];
  return (
    x && {
      kind: 'testExpectsImpossibleValue',
      detail: `${x.file} "${x.caseName}" expects ${x.actual} to equal ${x.expected}, which its declared type cannot hold (${x.code}: ${x.message})`,
      file: x.file,
      code: x.code,
    }
  );
}

const STACK_FRAME = /(?:\(|\s|^)((?:file:\/\/)?\/[^\s():]+\.[cm]?[jt]sx?):(\d+):\d+/gm;

/** Workspace files named by the failing tests' stack frames, relative to the root. */
export function frameFiles(tests: TestRunResult | undefined, root: string): { file: string; line: number }[] {
  if (!tests) return [];
  const base = root.replace(/\\/g, '/').replace(/\/$/, '') + '/';
  const text = tests.cases.map((c) => c.stack ?? '').join('\n') + '\n' + tests.output;
  const out: { file: string; line: number }[] = [];
  for (const m of text.matchAll(STACK_FRAME)) {
    const abs = (m[1] ?? '').replace(/^file:\/\//, '');
    if (!abs.startsWith(base) || abs.includes('/node_modules/')) continue;
    out.push({ file: abs.slice(base.length), line: Number(m[2]) });
  }
  return out;
}

const writable = (m: Manifest, f: string) => m.scope.write.some((s) => s.path === f) || m.testFiles.includes(f);

/**
 * manifest is wrong: a fact no change inside the scope can fix. The change caused an error in a
 * workspace file that is neither in scope nor a test, or the code needs a symbol only an
 * out-of-scope file can provide (the language service's own fix for the error would have to
 * change that file). A failing stack frame outside the scope is not such a fact: a helper that
 * refuses a bad argument by design throws in its own file, so the frame shows where the
 * caller's mistake surfaced, not that the helper must change (see `frameOnlyDetail`).
 */
function manifestFact(i: RouterInputs): MachineFact | undefined {
  const { manifest: m, diagnostics: ds } = i;
  const inScope = (f: string) => writable(m, f);
  const d = errorsOnly(ds).find((x) => !inScope(x.file));
  if (d) {
    return {
      kind: 'outsideScopeDiagnostic',
      detail: `${d.file}:${d.line} ${d.code}: ${d.message} (outside the scope)`,
      file: d.file,
      line: d.line,
      code: d.code,
    };
  }
  const fix = i.refusedFixes?.find((r) => r.files.some((f) => !inScope(f)));
  if (fix) {
    const outside = fix.files.filter((f) => !inScope(f));
    return {
      kind: 'symbolNotInScope',
      detail: `${fix.file} ${fix.code}: the language service's fix "${fix.description}" needs ${outside.join(', ')}, outside the scope`,
      file: outside[0],
      code: fix.code,
    };
  }
  return undefined;
}

/** Why a scope claim that points only at a failing frame outside the scope is vetoed; undefined when there is no such frame. */
function frameOnlyDetail(i: RouterInputs): string | undefined {
  const frame = frameFiles(i.tests, i.workspaceRoot).find((f) => !writable(i.manifest, f.file));
  return (
    frame &&
    `the Debugger claimed "manifest is wrong", but its only out-of-scope evidence is a failing stack frame in ${frame.file}:${frame.line}: it shows where the failure surfaced, not that ${frame.file} must change (the change caused no error there and needs nothing only it can provide): the failure takes the code path`
  );
}

/** ticket is wrong: a symbol the ticket names does not resolve with the language service. */
function ticketFact(m: Manifest): MachineFact | undefined {
  const f = m.facts.find((x) => x.signature === null);
  return (
    f && {
      kind: 'unresolvedTicketSymbol',
      detail: `the ticket names ${f.symbol} in ${f.file}, which the language service cannot resolve`,
      file: f.file,
    }
  );
}

/** Every out-of-scope file the failure points at, for a scope-addition proposal. */
export function outsideScopeFiles(i: RouterInputs): string[] {
  const inScope = (f: string) => writable(i.manifest, f);
  const files = new Set<string>();
  for (const d of errorsOnly(i.diagnostics)) if (!inScope(d.file)) files.add(d.file);
  for (const f of frameFiles(i.tests, i.workspaceRoot)) if (!inScope(f.file)) files.add(f.file);
  for (const r of i.refusedFixes ?? []) for (const f of r.files) if (!inScope(f)) files.add(f);
  return [...files].sort();
}

/**
 * The router. The Debugger's classification confirms; a deterministic check decides.
 * A claim with no machine fact behind it goes down the code path: a missing fact costs a
 * missed route, never a wrong repair. A code route that repeats the approach the last
 * diagnosis flagged goes to the operator instead of spending the rest of the budget.
 */
export function route(i: RouterInputs): RouteDecision {
  let decision: RouteDecision;
  const tampered = i.tampered?.[0];
  if (tampered) {
    // The judge itself was rewritten: no claim about the test, the scope or the ticket can rest on it.
    const fact: MachineFact = {
      kind: 'oracleTampered',
      detail: `${tampered.path} changed during the attempt; the code under test must not write it`,
      file: tampered.path,
    };
    decision = {
      claimed: i.diagnosis?.kind ?? null,
      route: 'code',
      guard: {
        verdict: i.diagnosis?.kind === 'code' ? 'confirmed' : 'overridden',
        fact,
        detail: `the code changed the oracle (${fact.detail}): the Coder owns the fix`,
      },
    };
  } else if (!i.diagnosis) {
    decision = {
      claimed: null,
      route: 'code',
      guard: { verdict: 'abstained', detail: 'no usable diagnosis: the failure takes the code path' },
    };
  } else if (i.diagnosis.kind === 'code') {
    decision = {
      claimed: 'code',
      route: 'code',
      guard: { verdict: 'notNeeded', detail: 'the Debugger found a code bug; the Coder owns the fix' },
    };
  } else {
    const kind = i.diagnosis.kind;
    const fact = kind === 'test' ? testFact(i) : kind === 'manifest' ? manifestFact(i) : ticketFact(i.manifest);
    decision = fact
      ? {
          claimed: kind,
          route: kind,
          guard: { verdict: 'confirmed', fact, detail: `a machine fact confirms "${kind} is wrong": ${fact.detail}` },
        }
      : {
          claimed: kind,
          route: 'code',
          guard: {
            verdict: 'overridden',
            detail:
              (kind === 'manifest' && frameOnlyDetail(i)) ||
              `the Debugger claimed "${kind} is wrong", but no machine fact confirms it: the failure takes the code path`,
          },
        };
  }
  if (decision.route === 'code' && !tampered && i.heldOutFact) {
    // The Debugger never reads a held-out case, so it cannot claim one wrong: the fact decides alone.
    const fact = i.heldOutFact;
    return {
      claimed: decision.claimed,
      route: 'test',
      guard: {
        verdict: decision.claimed === 'test' ? 'confirmed' : 'overridden',
        fact,
        detail: `the test plan contradicts itself (${fact.detail}): the operator corrects it; no code attempt can pass`,
      },
    };
  }
  const alike = i.repeat && i.repeat.current.length ? similarity(i.repeat.current, i.repeat.previous) : 0;
  if (decision.route === 'code' && alike >= REPEAT_SIMILARITY) {
    return {
      claimed: decision.claimed,
      route: 'escalate',
      guard: {
        verdict: 'confirmed',
        fact: {
          kind: 'repeatedApproach',
          detail: `this attempt's change is ${Math.round(alike * 100)}% the same code structure (identifiers and literals set aside) as the attempt the last diagnosis flagged`,
        },
        detail: 'the Coder repeated the flagged approach: the operator decides instead of spending the rest of the budget',
      },
    };
  }
  return decision;
}
