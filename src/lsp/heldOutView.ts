import type { CodeLens } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { TicketValidationError } from '../core/errors';
import { caseStanding, heldOutCases, type CaseStanding } from '../core/stages/manifest/heldOut';
import type { Ticket } from '../core/schema/ticket';
import { parseTicket } from '../core/ticket/ticketLoader';
import type { TicketSource } from './ticketSource';

/**
 * Which cases of a ticket the Coder never sees, in the editor: the hover's line on a case and a
 * lens above each held-out one. The rule is `heldOutCases`'s (`src/core/stages/manifest/heldOut.ts`); this
 * only words it.
 */

/** The lens's title above a held-out case. */
export const HELD_OUT_LENS = 'Held out from the Coder';

const JUDGES = 'it judges an attempt once the visible cases pass';

/** The ticket as a run reads it, or undefined while it does not parse (the diagnostics say why). */
function parsed(ticketPath: string, text: string): Ticket | undefined {
  try {
    return parseTicket(ticketPath, text);
  } catch (err) {
    if (err instanceof TicketValidationError) return undefined;
    throw err;
  }
}

/** Whether a case is held out from the Coder, and why, in one line of markdown. */
export function standingWords(s: CaseStanding, criterion: string | undefined): string {
  const of = criterion === undefined ? 'its criterion' : `criterion ${criterion}`;
  if (s.heldOut) {
    const why = s.why === 'holdout' ? 'it says `holdout: true`' : `the last case of ${of}`;
    return `**Held out:** ${why} — the Coder never sees it; ${JUDGES}.`;
  }
  const seen = 'the Coder sees it, and every attempt is judged by it';
  switch (s.why) {
    case 'generalize off':
      return '**Visible:** the ticket says `generalize: false`, so nothing is held out — the Coder sees every case.';
    case 'holdout false':
      return `**Visible:** it says \`holdout: false\` — ${seen}.`;
    case 'no criterion':
      return `**Visible:** ${seen}. It names no criterion: only a criterion's last case is held out, or a case that says \`holdout: true\`.`;
    case 'only case of its criterion':
      return `**Visible:** ${seen}. It is the only case of ${of}: a criterion's last case is held out only when it has two or more.`;
    case 'not last of its criterion':
      return `**Visible:** ${seen}. It is not the last case of ${of}: only the last is held out.`;
  }
}

/** Where the case at `testPlan.files[fi].cases[ci]` stands, with its criterion and its file's path; undefined while the ticket does not parse. */
export function standingOf(
  ticketPath: string,
  text: string,
  fi: number,
  ci: number,
): { standing: CaseStanding; criterion?: string; file: string } | undefined {
  const ticket = parsed(ticketPath, text);
  const file = ticket?.testPlan.files[fi];
  const standing = ticket && caseStanding(ticket, fi, ci);
  return standing && file && { standing, criterion: file.cases[ci]?.criterion, file: file.path };
}

/** A lens above each held-out case; none while the ticket does not parse. */
export function heldOutLenses(doc: TextDocument, source: TicketSource, ticketPath: string): CodeLens[] {
  const ticket = parsed(ticketPath, source.text);
  if (!ticket) return [];
  return heldOutCases(ticket).map((c) => {
    const start = doc.positionAt(source.rangeOf(c.path).offset);
    // No command to run: the lens is a label.
    return { range: { start, end: start }, command: { title: HELD_OUT_LENS, command: '' } };
  });
}
