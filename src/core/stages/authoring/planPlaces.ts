import type { Ticket } from '../../schema/ticket';
import { heldOutPath } from '../manifest/heldOut';
import { caseCode, type LaidOutTestFile, type RenderedPlace } from '../materializer';
import { caseName } from '../materializer/render';

/**
 * From a rendered test file back to the ticket: which part of the plan a line renders, at its
 * JSON path. A finding on a rendered line is put on that one case or import, not the plan.
 */

/** One case as its rendered file holds it. */
export interface RenderedCase {
  /** Its JSON path in the ticket. */
  path: string;
  /** The rendered file it goes into (the held-out one, for a held-out case). */
  file: string;
  /** Its own code: its name and body as rendered. */
  code: string;
}

/** The index in the ticket's plan of the file a rendered file (visible or held out) comes from. */
function planFileIndex(ticket: Ticket, rendered: string): number {
  return ticket.testPlan.files.findIndex((f) => f.path === rendered || heldOutPath(f.path) === rendered);
}

/** The JSON path in the ticket of a rendered part; a case is found by the name it is rendered under. */
function ticketPath(ticket: Ticket, fi: number, place: RenderedPlace): string | undefined {
  const [part, at] = place.at;
  if (part === 'hooks') return `$.testPlan.files[${fi}].hooks.${at}`;
  if (part !== 'cases') return `$.testPlan.files[${fi}].${part}[${at}]`;
  const c = ticket.testPlan.files[fi]?.cases.findIndex((k) => caseName(k) === place.name) ?? -1;
  return c >= 0 ? `$.testPlan.files[${fi}].cases[${c}]` : undefined;
}

/** The part of the plan a rendered line is in. */
export const placeAt = (file: LaidOutTestFile, line: number): RenderedPlace | undefined =>
  file.places.find((p) => line >= p.first && line <= p.last);

/** The rendered text of the part of the plan a line is in (the line alone, in the file's own code). */
export function partTextAt(file: LaidOutTestFile, line: number): string {
  const place = placeAt(file, line);
  return file.content
    .split('\n')
    .slice((place?.first ?? line) - 1, place?.last ?? line)
    .join('\n');
}

/** The JSON path of what a rendered line renders; a line of the file's own code (none of the plan's) is put on the file's path. */
export function ticketPathAt(ticket: Ticket, file: LaidOutTestFile, line: number): string {
  const fi = planFileIndex(ticket, file.path);
  const place = placeAt(file, line);
  return (place && ticketPath(ticket, fi, place)) ?? `$.testPlan.files[${fi}].path`;
}

/** Each case of a rendered file, with its own code. */
export function renderedCases(ticket: Ticket, file: LaidOutTestFile): RenderedCase[] {
  const fi = planFileIndex(ticket, file.path);
  return file.places.flatMap((place) => {
    const path = place.at[0] === 'cases' ? ticketPath(ticket, fi, place) : undefined;
    return path ? [{ path, file: file.path, code: caseCode(file.content, place) }] : [];
  });
}
