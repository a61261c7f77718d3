import { CancelledError, ModelContractError, TicketValidationError, UserInputError } from '../../errors';
import type { DiagnosticsPort } from '../../ports/checks';
import type { ClockPort } from '../../ports/clock';
import type { ModelPort } from '../../ports/model';
import type { WorkspacePort } from '../../ports/workspace';
import { resolveRecovery } from '../../recovery/policy';
import { extractJsonAnswer, jsonOnlyInstruction } from '../../recovery/proseSuppression';
import { RunStop } from '../../recovery/runStop';
import type { RecoveryPolicy } from '../../schema/events';
import { watchedCall } from '../coder/watchedCall';
import { draftLog, draftRecord, type DraftRecord } from './draftRecord';
import type { CallContext } from '../common/modelCall';
import { ticketJsonSchema } from '../../schema/jsonSchema';
import type { Ticket } from '../../schema/ticket';
import { ticketFormatOf } from '../../ticket/ticketFormat';
import { parseTicket } from '../../ticket/ticketLoader';
import { ticketText } from '../../ticket/ticketTemplate';
import { validateTicket, type TicketFinding } from './validateTicket';
import type { MaterializedFile } from '../materializer';

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
  /** What the draft's model calls cost and which rungs fired, in plain words for the user. */
  record: DraftRecord;
}

export interface DraftDeps {
  model: ModelPort;
  workspace: WorkspacePort;
  diagnostics?: DiagnosticsPort;
  /** Times the calls and the budget, as a run's clock does. */
  clock: ClockPort;
  /** The rungs' settings (the start deadline, say); the run's defaults when absent. */
  recovery?: Partial<RecoveryPolicy>;
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
  'Every acceptance criterion is named by at least two test cases (their criterion), each on an input the others do not cover:',
  'the last case of each criterion is held out from the Coder and judges whether the fix is general, so it must not repeat another case.',
  'List in refs the symbols the ticket relies on that exist today.',
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
 * user saves it and runs it if they choose to.
 *
 * Every call goes through the run's rungs (callModel under rung 1's watch), logged in a
 * draft's own log kept in memory: a stream that never starts is stopped and asked again with
 * the thinking mode flipped (rung 1); an answer that is prose around JSON has its JSON taken
 * out; one that is not JSON or not a valid ticket is refused and asked again with the reason
 * (rung 2, the schema being the verifier). After the last ask the error says why each answer
 * was refused.
 */
export async function draftTicket(deps: DraftDeps, input: DraftInput, signal: AbortSignal): Promise<Draft> {
  const issue = input.issueText.trim();
  if (!issue) throw new UserInputError('the issue text is empty: give the text of an issue or a description of the change');
  if (issue.length > MAX_ISSUE_CHARS)
    throw new UserInputError(
      `the issue text is ${issue.length} characters; a draft is made from at most ${MAX_ISSUE_CHARS}: give the issue, not a log`,
    );
  const prompt = draftPrompt({ ...input, issueText: issue }, await sourceFiles(deps.workspace));
  const ctx: CallContext = {
    deps: { model: deps.model, clock: deps.clock },
    log: draftLog(input.id, deps.clock),
    // A draft makes no Coder attempt; its calls are capped by the asks below.
    budget: { attempts: 1 },
    recovery: resolveRecovery(deps.recovery),
    signal,
    startedAt: deps.clock.now().getTime(),
  };
  const rejected: string[] = [];
  const extracted: string[] = [];
  let thinking = false;
  // Rung 2 for a structured answer: the schema is its verifier, and a refusal is asked again with its reason.
  const refuse = async (why: string, ask: number) => {
    rejected.push(why);
    if (ask < ASKS)
      await ctx.log.emit({
        type: 'rung.fired',
        attempt: ask,
        rung: 2,
        trigger: 'verifierFailed',
        reason: `answer ${ask} was refused (${why}); asking again with the reason`,
      });
  };
  for (let ask = 1; ask <= ASKS; ask++) {
    if (signal.aborted) throw new CancelledError('the draft was cancelled');
    const note = rejected.length
      ? `\n\nYour previous answer was refused: ${rejected[rejected.length - 1]}. ${jsonOnlyInstruction(TOOL)}`
      : '';
    let raw: unknown;
    let refusal: string | undefined;
    try {
      const turn = await watchedCall(
        ctx,
        {
          role: 'drafter',
          attempt: ask,
          system: DRAFT_SYSTEM,
          messages: [{ role: 'user', content: prompt + note }],
          structured: { name: TOOL, description: 'The drafted ticket', jsonSchema: ticketJsonSchema() },
          maxTokens: 8_000,
          thinking,
        },
        false,
      );
      if (turn.kind === 'stopped') {
        const why = `the answer was stopped (${turn.verdict.reason}): ${turn.verdict.detail}`;
        rejected.push(why);
        thinking = !thinking;
        if (ask < ASKS)
          await ctx.log.emit({
            type: 'rung.fired',
            attempt: ask,
            rung: 1,
            trigger: turn.verdict.reason,
            thinking,
            reason: `${why}; asking again with thinking ${thinking ? 'on' : 'off'}`,
          });
        continue;
      }
      const response = turn.response;
      if (response.structured !== undefined) raw = response.structured;
      else {
        const found = extractJsonAnswer(response.text);
        raw = found.value;
        if (found.value)
          extracted.push(
            `answer ${ask} was text: its one JSON object was taken out of it (${found.adaptation.skippedChars} characters around it dropped)`,
          );
      }
    } catch (err) {
      if (err instanceof RunStop) throw draftStopped(err, ctx);
      if (!(err instanceof ModelContractError)) throw err;
      refusal = `the answer broke its contract: ${err.message}`;
    }
    refusal ??= refusalOf(raw);
    if (refusal) {
      await refuse(refusal, ask);
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
      const why = `the ticket does not match its schema: ${err.problems.map((p) => `${p.path} ${p.message}`).join('; ')}`;
      await refuse(why, ask);
      continue;
    }
    const text = ticketText(value, ticketFormatOf(input.ticketPath));
    const { findings, rendered } = await validateTicket(deps, input.ticketPath, text, signal);
    return { text, ticket, findings: [...findings, ...thinCriteria(ticket)], rendered, rejected, record: draftRecord(ctx.log, extracted) };
  }
  const why = rejected.map((r, i) => `${i + 1}: ${r}`.replace(/\s*\n\s*/g, ' ')).join('; ');
  throw new UserInputError(
    `the model gave no valid ticket in ${ASKS} asks (${why}); ${draftRecord(ctx.log, extracted).summary}; run the draft again, or write the ticket with New Ticket`,
  );
}

/**
 * A drafted criterion with one case holds nothing out (`heldOutCases`): a fix shaped to that
 * one case passes. Said as a suggestion on the draft, not refused: asking again costs a call,
 * and the user adding a case is the better fix.
 */
function thinCriteria(ticket: Ticket): TicketFinding[] {
  if (ticket.generalize === false) return [];
  return ticket.acceptance.flatMap((a, i) => {
    const cases = ticket.testPlan.files.flatMap((f) => f.cases).filter((c) => c.criterion === a.id).length;
    return cases === 1
      ? [
          {
            path: `$.acceptance[${i}]`,
            message: `${a.id} has one test case, so none of it is held out from the Coder and a fix shaped to that case passes: add a case with another input`,
            severity: 'information' as const,
          },
        ]
      : [];
  });
}

/** Why an answer is refused before its schema is read, or nothing. */
function refusalOf(raw: unknown): string | undefined {
  return raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)
    ? 'the answer is not a JSON object and called no tool'
    : undefined;
}

/** A stop inside callModel (the transport failed, the user cancelled) as the draft's one-line error. */
function draftStopped(err: RunStop, ctx: CallContext): Error {
  if (err.stop.kind === 'cancelled' || ctx.signal.aborted) return new CancelledError('the draft was cancelled');
  const what = err.stop.kind === 'modelError' ? err.stop.message : err.stop.kind;
  // Said as plainly as a refused draft: the user's next step is the same, run it again.
  return new UserInputError(
    `the model failed while drafting (${what}); ${draftRecord(ctx.log, []).summary}; nothing was written: run the draft again`,
  );
}
