import { CancelledError, ModelContractError, TicketValidationError, UserInputError } from '../errors';
import type { DiagnosticsPort } from '../ports/checks';
import type { ModelPort } from '../ports/model';
import type { WorkspacePort } from '../ports/workspace';
import { extractJsonAnswer, jsonOnlyInstruction } from '../recovery/proseSuppression';
import { ticketJsonSchema } from '../schema/jsonSchema';
import type { Ticket } from '../schema/ticket';
import { ticketFormatOf } from './ticketFormat';
import { parseTicket } from './ticketLoader';
import { ticketText } from './ticketTemplate';
import { validateTicket, type TicketFinding } from './validateTicket';
import type { MaterializedFile } from './materializer';

/** What to draft from: an issue's text, and where the ticket would be saved (its format comes from the name). */
export interface DraftInput {
  issueText: string;
  /** `.tickets/<ID>.ticket.json` or `.ticket.yaml`; the id is the file's. */
  ticketPath: string;
  id: string;
}

export interface Draft {
  /** The ticket's text in its file's format: shown to the user, saved only by the user. */
  text: string;
  ticket: Ticket;
  /** `validate`'s findings on the draft, and the tests it renders. */
  findings: TicketFinding[];
  rendered: MaterializedFile[];
  /** The answers refused before this one, with why: a draft that needed asking again says so. */
  rejected: string[];
}

/** An issue is a page or two; past this it is a log or a dump, not something to draft a ticket from. */
export const MAX_ISSUE_CHARS = 50_000;
/** Asks before giving up: the first, and two with the reason the last answer was refused. */
const ASKS = 3;
const TOOL = 'draft_ticket';

const DRAFT_SYSTEM = [
  'You are the Drafter of Ticket Runner. From an issue, you draft a ticket: what to change, where (scope.write and scope.read),',
  'acceptance criteria a user can observe, and a structured test plan whose expectations are TypeScript expressions over the code.',
  'Name only files the workspace has (listed below) or that the ticket asks to create. Put test files under test/ticket/<ID>.test.ts.',
  'Every acceptance criterion is named by at least one test case (its criterion). List in refs the symbols the ticket relies on that exist today.',
  'Never invent behaviour the issue does not ask for.',
].join(' ');

function draftPrompt(input: DraftInput, files: string[]): string {
  return [
    `Ticket id: ${input.id}`,
    `Workspace source files:\n${files.map((f) => `- ${f}`).join('\n') || '(none found)'}`,
    `The issue:\n<<<\n${input.issueText}\n>>>`,
    `Answer with the ticket, valid against the tool's JSON Schema.`,
  ].join('\n\n');
}

/** The workspace's source files, for the prompt: not node_modules, not the run store, at most a few hundred. */
async function sourceFiles(workspace: WorkspacePort): Promise<string[]> {
  const all = await workspace.listFiles('');
  return all.filter((f) => /\.(c|m)?[tj]sx?$/.test(f) && !/(^|\/)(node_modules|\.ticket-runner|dist|out)\//.test(f)).slice(0, 300);
}

/**
 * Drafts a ticket from an issue's text with the model, then checks it as `validate` does and
 * renders its tests. Nothing is written and nothing runs: the caller shows the draft, and the
 * user saves it and runs it if they choose to. An answer that is not JSON or not a valid
 * ticket is refused and asked again with the reason, like every structured call; after the
 * last ask the error says why each answer was refused.
 */
export async function draftTicket(
  deps: { model: ModelPort; workspace: WorkspacePort; diagnostics?: DiagnosticsPort },
  input: DraftInput,
  signal: AbortSignal,
): Promise<Draft> {
  const issue = input.issueText.trim();
  if (!issue) throw new UserInputError('the issue text is empty: give the text of an issue or a description of the change');
  if (issue.length > MAX_ISSUE_CHARS) throw new UserInputError(`the issue text is ${issue.length} characters; a draft is made from at most ${MAX_ISSUE_CHARS}: give the issue, not a log`);
  const prompt = draftPrompt({ ...input, issueText: issue }, await sourceFiles(deps.workspace));
  const rejected: string[] = [];
  for (let ask = 0; ask < ASKS; ask++) {
    if (signal.aborted) throw new CancelledError('the draft was cancelled');
    const note = rejected.length ? `\n\nYour previous answer was refused: ${rejected[rejected.length - 1]}. ${jsonOnlyInstruction(TOOL)}` : '';
    let raw: unknown;
    try {
      const response = await deps.model.complete(
        {
          role: 'drafter',
          attempt: ask + 1,
          system: DRAFT_SYSTEM,
          messages: [{ role: 'user', content: prompt + note }],
          structured: { name: TOOL, description: 'The drafted ticket', jsonSchema: ticketJsonSchema() },
          maxTokens: 8_000,
        },
        signal,
      );
      raw = response.structured ?? extractJsonAnswer(response.text).value;
    } catch (err) {
      if (!(err instanceof ModelContractError)) throw err;
      rejected.push(`the answer broke its contract: ${err.message}`);
      continue;
    }
    if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      rejected.push('the answer is not a JSON object and called no tool');
      continue;
    }
    // The id is the user's: the file is named by it.
    const value: Record<string, unknown> = { ...(raw as Record<string, unknown>), id: input.id };
    delete value.$schema;
    let ticket: Ticket;
    try {
      ticket = parseTicket(input.ticketPath.replace(/\.ya?ml$/i, '.json'), JSON.stringify(value));
    } catch (err) {
      if (!(err instanceof TicketValidationError)) throw err;
      rejected.push(`the ticket does not match its schema: ${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
      continue;
    }
    const text = ticketText(value, ticketFormatOf(input.ticketPath));
    const { findings, rendered } = await validateTicket(deps, input.ticketPath, text, signal);
    return { text, ticket, findings, rendered, rejected };
  }
  const why = rejected.map((r, i) => `${i + 1}: ${r}`.replace(/\s*\n\s*/g, ' ')).join('; ');
  throw new UserInputError(`the model gave no valid ticket in ${ASKS} asks (${why}); run the draft again, or write the ticket with New Ticket`);
}
