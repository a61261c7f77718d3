import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { draftTicket, MAX_ISSUE_CHARS } from '../../core/stages/authoring/draftTicket';
import type { TicketFormat } from '../../core/ticket/ticketFormat';
import { normalizeRelPath } from '../../core/schema/paths';
import { TICKET_ID } from '../../core/ticket/ticketIds';
import { wireDraftModel, wireTicketChecks, type ModelChoice } from '../../node/wire';
import { defineCommand, type Io } from '../command';
import { MODEL_OPTION, modelChoice } from '../modelChoice';
import { workspaceOf } from '../workspaceOf';
import { EXIT } from '../exitCodes';
import { systemClock } from '../../node/store/systemClock';

const DRAFT_HELP = `Usage: ticket-runner draft --from FILE|- --id ID [--format json|yaml] [--out PATH] [--workspace DIR] [--model anthropic|scripted] [--script FILE] [--json]

Drafts a ticket from an issue's text (a file, or - for standard input) with the model: its
scope, acceptance criteria and test plan. The draft is checked as \`validate\` checks a ticket
and its tests are rendered; the ticket goes to standard output (or to --out, never over an
existing file), its findings, rendered tests, model calls, cost and the recovery rungs that
fired to standard error. Nothing runs: run the
ticket when you have read it. Exits 0 with a draft that has no error, 3 otherwise.
--model scripted replays the "drafter" answers of --script FILE, by default of the ticket's
own .tickets/<ID>.script.json (a test and demo tool).`;

interface DraftOptions {
  ws: string;
  from: string | undefined;
  id: string | undefined;
  format: string | undefined;
  out: string | undefined;
  model: ModelChoice;
  script: string | undefined;
  json: boolean;
}

function issueText(ws: string, from: string | undefined): string {
  if (!from) throw new UserInputError("draft needs --from FILE (the issue's text), or --from - to read it from standard input");
  if (from === '-') return readFileSync(0, 'utf8');
  const file = path.resolve(ws, from);
  if (!existsSync(file)) throw new UserInputError(`no file ${from} to draft from`);
  const text = readFileSync(file, 'utf8');
  if (text.length > MAX_ISSUE_CHARS * 4) throw new UserInputError(`${from} is ${text.length} characters: give the issue's text, not a log`);
  return text;
}

/** `draft`: the model's ticket for an issue, validated and rendered, shown and not run. */
async function draft(o: DraftOptions, io: Io, signal: AbortSignal): Promise<number> {
  if (!o.id || !TICKET_ID.test(o.id))
    throw new UserInputError(
      `draft needs --id: the ticket's id, letters, digits, dot, dash or underscore (such as BLOG-14)${o.id ? `, got "${o.id}"` : ''}`,
    );
  const format = (o.format ?? (o.out && /\.ya?ml$/i.test(o.out) ? 'yaml' : 'json')) as TicketFormat;
  if (format !== 'json' && format !== 'yaml') throw new UserInputError(`--format must be json or yaml, got "${String(o.format)}"`);
  const ticketPath = o.out
    ? normalizeRelPath(path.relative(o.ws, path.resolve(o.ws, o.out)).split(path.sep).join('/'))
    : `.tickets/${o.id}.ticket.${format}`;
  if (o.out && existsSync(path.join(o.ws, ticketPath)))
    throw new UserInputError(`${ticketPath} already exists: a draft is never written over a ticket; pick another --out`);
  const text = issueText(o.ws, o.from);
  const model = wireDraftModel({ workspaceRoot: o.ws, model: o.model, ticketPath, scriptPath: o.script, env: process.env });
  const checks = wireTicketChecks(o.ws);
  try {
    const draft = await draftTicket({ model, clock: systemClock, ...checks }, { issueText: text, ticketPath, id: o.id }, signal);
    const ok = !draft.findings.some((f) => f.severity === 'error');
    if (o.json) {
      io.out(
        JSON.stringify(
          {
            ticketPath,
            ok,
            text: draft.text,
            findings: draft.findings,
            rendered: draft.rendered,
            rejected: draft.rejected,
            record: draft.record,
          },
          null,
          2,
        ),
      );
    } else {
      for (const r of draft.rejected) io.err(`an answer was refused and asked again: ${r}`);
      for (const r of draft.record.rungs) io.err(`recovery: ${r}`);
      io.err(`the draft took ${draft.record.summary}`);
      for (const f of draft.findings) io.err(`${ticketPath}: ${f.severity} at ${f.path}: ${f.message}`);
      for (const f of draft.rendered) io.err(`// ==> ${f.path} (rendered, not written) <==\n${f.content}`);
      io.out(draft.text.replace(/\n$/, ''));
    }
    if (o.out) {
      mkdirSync(path.dirname(path.join(o.ws, ticketPath)), { recursive: true });
      writeFileSync(path.join(o.ws, ticketPath), draft.text, { flag: 'wx' });
      io.err(`wrote ${ticketPath}; it has not run: read it, then ticket-runner run ${ticketPath}`);
    }
    return ok ? EXIT.passed : EXIT.error;
  } finally {
    checks.diagnostics?.dispose?.();
  }
}

export const draftCommand = defineCommand({
  name: 'draft',
  synopsis: 'draft --from FILE|- --id ID',
  summary: "draft a ticket from an issue's text with the model; shown, never run",
  help: DRAFT_HELP,
  options: { ...MODEL_OPTION, out: { type: 'string' } },
  ownOptions: { from: { type: 'string' }, id: { type: 'string' }, format: { type: 'string' }, script: { type: 'string' } },
  run: ({ flags, io, signal }) =>
    draft(
      {
        ws: workspaceOf(flags),
        from: flags.from,
        id: flags.id,
        format: flags.format,
        out: flags.out,
        model: modelChoice(flags),
        script: flags.script,
        json: flags.json === true,
      },
      io,
      signal,
    ),
});
