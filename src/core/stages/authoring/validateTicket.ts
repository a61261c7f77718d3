import { TicketValidationError } from '../../errors';
import type { DiagnosticsPort } from '../../ports/checks';
import type { WorkspacePort } from '../../ports/workspace';
import type { SymbolRef, Ticket } from '../../schema/ticket';
import { buildManifest, ticketPathProblems } from '../manifest/manifestBuilder';
import { impossibleExpectations, renderTypeProbe } from '../checks/typeProbe';
import { declaredOverlays } from '../ops/declared';
import { layOutPlan, type MaterializedFile } from '../materializer';
import { heldOutCases, type HeldOutCase } from '../manifest/heldOut';
import { suggestRefs } from '../../ticket/refSuggestions';
import { parseTicket } from '../../ticket/ticketLoader';
import { placeholderPaths, TEMPLATE_MARK } from '../../ticket/ticketTemplate';
import { criteriaLeftToAuthored, criteriaWithoutTest } from '../../ticket/untestedCriteria';
import { askedForNames, fromStandIn, withAskedFor } from './askedForCode';
import { partTextAt, placeAt, renderedCases, ticketPathAt, type RenderedCase } from './planPlaces';

/** One finding of `validate`: where in the ticket (a JSON path), what, and whether it stops a run. */
export interface TicketFinding {
  path: string;
  message: string;
  /**
   * error: a run of this ticket would stop on it; warning: it may be intended, and the run goes
   * on; information: a suggestion (a `refs` entry the ticket's words ask for).
   */
  severity: 'error' | 'warning' | 'information';
  /** For a `refs` suggestion: the exact entry to add to `refs`. */
  addRef?: SymbolRef;
}

export interface TicketValidation {
  findings: TicketFinding[];
  /** The test files a run would render, when the ticket got that far. */
  rendered: MaterializedFile[];
  /** The cases the Coder never sees (generalize), whatever else was found. */
  heldOut: HeldOutCase[];
  /** The held-out test files a run would render, only for the command that judges with them. */
  renderedHeldOut: MaterializedFile[];
  /** Each case of `rendered` and `renderedHeldOut` with its own code: what a hover on it shows. */
  cases: RenderedCase[];
}

/** A ticket that stops short of rendering. */
const nothingRendered = (): Pick<TicketValidation, 'rendered' | 'renderedHeldOut' | 'cases'> => ({
  rendered: [],
  renderedHeldOut: [],
  cases: [],
});

/** The finding for a `refs` entry the language service cannot resolve. */
export const unresolvedRef = (i: number, symbol: string, file: string): string =>
  `refs[${i}]: ${symbol} does not resolve in ${file}: fix the name or the file`;

/**
 * Checks a ticket the way a run would, without running anything or calling a model: the schema,
 * every path, the `refs` (each must resolve), the criteria without a test, the `refs` its words
 * ask for (suggestions), and the rendered tests against the code as it is now, with the code the
 * ticket asks the Coder to write taken as there. A type error left is a warning on its one case or
 * import: it may still be a change the ticket asks for.
 */
export async function validateTicket(
  deps: { workspace: WorkspacePort; diagnostics?: DiagnosticsPort },
  ticketPath: string,
  text: string,
  signal: AbortSignal,
): Promise<TicketValidation> {
  let ticket: Ticket;
  try {
    ticket = parseTicket(ticketPath, text);
  } catch (err) {
    if (err instanceof TicketValidationError)
      return { findings: err.problems.map((p) => ({ ...p, severity: 'error' })), heldOut: [], ...nothingRendered() };
    throw err;
  }
  const findings: TicketFinding[] = placeholderPaths(ticket).map((p) => ({
    path: p,
    message: `still holds the new ticket's placeholder ${TEMPLATE_MARK}: write it`,
    severity: 'error',
  }));
  const heldOut = heldOutCases(ticket);
  if (findings.length) return { findings, heldOut, ...nothingRendered() };
  findings.push(...(await ticketPathProblems(ticket, ticketPath, deps.workspace)).map((p): TicketFinding => ({ ...p, severity: 'error' })));
  const untested = criteriaWithoutTest(ticket.acceptance, ticket.testPlan);
  if (untested.length)
    findings.push({
      path: '$.testPlan',
      message: `no test case names acceptance criteri${untested.length === 1 ? 'on' : 'a'} ${untested.join(', ')}: the test reviewer gate will fail`,
      severity: 'warning',
    });
  const leftToAuthored = criteriaLeftToAuthored(ticket.acceptance, ticket.testPlan);
  if (leftToAuthored.length)
    findings.push({
      path: '$.testPlan.authored',
      message: `no rendered case names ${leftToAuthored.join(', ')}: the tests you wrote are taken to check ${leftToAuthored.length === 1 ? 'it' : 'them'}, and which criteria they check is not checked (the test reviewer reads the visible ones)`,
      severity: 'information',
    });
  if (findings.some((f) => f.severity === 'error')) return { findings, heldOut, ...nothingRendered() };

  const manifest = await buildManifest({ ticket, ticketPath, workspace: deps.workspace, diagnostics: deps.diagnostics });
  manifest.facts.forEach((fact, i) => {
    if (fact.signature === null)
      findings.push({ path: `$.refs[${i}]`, message: unresolvedRef(i, fact.symbol, fact.file), severity: 'error' });
  });
  if (deps.diagnostics) {
    for (const { path, ref } of await suggestRefs(ticket, deps.diagnostics)) {
      const entry = JSON.stringify(ref);
      findings.push({
        path,
        message: `names ${ref.symbol}, which ${ref.file} declares, and refs does not list it: add ${entry} to refs, so a run checks it resolves and its signature reaches the Coder`,
        severity: 'information',
        addRef: ref,
      });
    }
  }
  const options = { language: manifest.testLanguage, moduleKind: manifest.moduleKind };
  const laidOut = layOutPlan(manifest.testPlan, manifest.runner.framework, options);
  const laidOutHeldOut = layOutPlan({ files: manifest.heldOut.files }, manifest.runner.framework, options);
  const bare = (files: typeof laidOut) => files.map(({ path, content }) => ({ path, content }));
  const cases = [...laidOut, ...laidOutHeldOut].flatMap((f) => renderedCases(ticket, f));
  const probe = deps.diagnostics?.probe?.bind(deps.diagnostics);
  if (probe) {
    const read = (p: string) => deps.workspace.readFile(p);
    // Against the code as the ticket declares it: a declared export is there for the tests to name.
    const declared = await declaredOverlays(manifest.ops, read);
    for (const [i, file] of laidOut.entries()) {
      const plan = manifest.testPlan.files[i]!;
      const errorsWith = async (overlays: readonly { path: string; content: string }[]) =>
        (await probe(file.path, file.content, signal, overlays)).filter((d) => d.file === file.path && d.category === 'error');
      let errors = await errorsWith(declared);
      const onImports = errors.flatMap((d) => {
        const place = placeAt(file, d.line);
        return place?.at[0] === 'imports' ? [{ d, importIndex: place.at[1] }] : [];
      });
      // What the ticket asks the Coder to write is not there yet: the plan is checked as if it were.
      const asked = askedForNames(onImports, plan, ticket);
      const overlays = asked.size ? await withAskedFor(declared, asked, read) : declared;
      if (asked.size) errors = (await errorsWith(overlays)).filter((d) => !fromStandIn(d, partTextAt(file, d.line), asked));
      for (const d of errors) {
        findings.push({
          path: ticketPathAt(ticket, file, d.line),
          message: `the rendered ${file.path}, line ${d.line}:${d.column}: ${d.code} ${d.message} (against the code as it is now; expected if the ticket asks for it)`,
          severity: 'warning',
        });
      }
      // The wrong-test guard's type fact, as you type: an equality its subject's type cannot hold.
      const typeProbe = manifest.testLanguage === 'ts' ? renderTypeProbe(plan) : null;
      if (!typeProbe) continue;
      for (const x of impossibleExpectations(typeProbe, await probe(typeProbe.path, typeProbe.content, signal, overlays))) {
        const c = plan.cases.findIndex((k) => k.name === x.caseName);
        findings.push({
          path: c >= 0 ? `$.testPlan.files[${i}].cases[${c}]` : `$.testPlan.files[${i}]`,
          message: `"${x.caseName}" expects ${x.actual} to equal ${x.expected}, which its declared type cannot hold (${x.code}: ${x.message}): a run would find this test wrong`,
          severity: 'warning',
        });
      }
    }
  }
  return { findings, rendered: bare(laidOut), heldOut, renderedHeldOut: bare(laidOutHeldOut), cases };
}
