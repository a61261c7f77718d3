import type { RunContext } from '../common/context';
import { pristineScope, readFiles, scopePaths } from '../common/scope';
import { unifiedDiff } from '../common/diff';
import { fence, type SourceFile } from '../common/evidence';
import { declaredForCoder } from '../ops/declared';
import type { Manifest } from '../../schema/manifest';
import { RUN_TESTS_TOOL } from './runTestsTool';
import { heldOutSecrets, leakedIn, WITHHELD_BRIEF, withoutHeldOut } from './heldOutLeaks';

export const CODER_SYSTEM = [
  'You are the Coder of Ticket Runner. You change only the files the manifest lets you write.',
  'Make your changes with the str_replace_based_edit_tool: str_replace with an old_str copied exactly from the file (whitespace included) that occurs',
  'once in it, insert to add lines, create for a new file, view to read a file with line numbers. Change only what the ticket needs:',
  'never rewrite a whole existing file, and never stand in for code with a comment such as "// ... existing code ...".',
  'A tool error says what to fix: correct the call and go on. When every change is made, end your turn with one line that says what you changed.',
  'If no tool is offered, answer instead with the whole new content of every file you change, each in a fenced block whose info string names the path:',
  '```ts file=src/example.ts',
  '// the whole file, nothing left out',
  '```',
  'Never write test files: the tests are the oracle.',
].join('\n');

export function manifestSummary(m: Manifest): string {
  return [
    `Ticket ${m.ticketId}: ${m.title}`,
    m.description,
    `Acceptance criteria:\n${m.acceptance.map((a) => `- ${a.id}: ${a.text}`).join('\n')}`,
    `You may write: ${m.scope.write.map((f) => f.path + (f.exists ? '' : ' (new)')).join(', ')}`,
    m.scope.read.length ? `You may read: ${m.scope.read.map((f) => f.path).join(', ')}` : '',
    `Tests (read-only): ${m.testFiles.join(', ')}`,
    declaredForCoder(m.ops),
    m.facts.length
      ? `Facts from the language service:\n${m.facts.map((f) => `- ${f.file} ${f.symbol}: ${f.signature ?? 'does not resolve'}`).join('\n')}`
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The part of the Coder's prompt that stays the same for every call of a run: the ticket, the
 * manifest, the files in scope as they were before the run, and the tests. It comes first and
 * ends at a cache breakpoint, so a retry (and each turn of an edit conversation) reads it from
 * the provider's prompt cache instead of paying for it again.
 */
export function coderContext(input: { manifest: Manifest; files: SourceFile[]; tests: SourceFile[] }): string {
  return [
    manifestSummary(input.manifest),
    `Files in scope, as they were before this run:\n${input.files.map(fence).join('\n')}`,
    `Test files:\n${input.tests.map(fence).join('\n')}`,
  ].join('\n\n');
}

/**
 * What changes from call to call, after the breakpoint: the run's changes to the files since
 * (unified diffs, so the files themselves are not sent again), the last failure and the brief.
 */
export function coderTask(input: { changes: string[]; brief?: string; lastFailure?: string }): string {
  return [
    input.changes.length
      ? `The files in scope have changed since the run started (earlier attempts, structural fixes); they now differ from the above by:\n${input.changes.join('\n')}\nEdit them as they are now: view a file to see it whole.`
      : '',
    input.lastFailure ? `The last attempt failed:\n${input.lastFailure}` : '',
    input.brief ? `Corrective brief from the Debugger:\n${input.brief}` : '',
    'Make the change the ticket asks for.',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Past this many, older flagged approaches add length, not guidance; each is cut to a line or two. */
const MAX_FLAGGED = 12;
const MAX_FLAGGED_CHARS = 300;

/**
 * The corrective brief the Coder gets after a diagnosis routed to code: the Debugger's brief and
 * every approach flagged so far in the segment (this diagnosis's `avoid` and the earlier ones),
 * so a retry is told what not to try again, not only what to try.
 */
export function correctiveBrief(brief: string | undefined, flagged: string[]): string | undefined {
  const seen = new Set<string>();
  const items: string[] = [];
  for (const raw of flagged) {
    const one = raw.replace(/\s+/g, ' ').trim();
    const item = one.length > MAX_FLAGGED_CHARS ? `${one.slice(0, MAX_FLAGGED_CHARS)}…` : one;
    if (item && !seen.has(item)) {
      seen.add(item);
      items.push(item);
    }
  }
  const kept = items.slice(-MAX_FLAGGED);
  const avoid = kept.length ? `Approaches already flagged as wrong; do not repeat them:\n${kept.map((a) => `- ${a}`).join('\n')}` : '';
  return [brief ?? '', avoid].filter(Boolean).join('\n\n') || undefined;
}

/**
 * What the Coder's system prompt says about the tool when rung 4 offers it: what it runs, when
 * a call pays off, and that the answer is still judged on its own (a passing candidate is no
 * verdict: the files in the answer are checked again when written).
 */
export function runTestsGuidance(limit: number): string {
  return [
    `You have one tool, ${RUN_TESTS_TOOL}: it runs the real checks (syntax, type errors, lint) and the ticket's tests on candidate versions of files in scope,`,
    'in a scratch copy of the workspace; nothing is written. Call it with the whole candidate files when you are not sure they pass:',
    'after a failed attempt, for an edge case the tests pin, or for a type you cannot see. Read its results, fix what failed, then make the change',
    `with your edits as usual: only your edits (or whole files) are written, and they are checked again. At most ${limit} call(s) in this attempt.`,
  ].join('\n');
}

/**
 * The Coder's prompt for an attempt, in the order the prompt cache wants: the context every
 * call of the run shares (the files as they were before the run, so it stays byte for byte the
 * same), then the task, which carries what changed since as unified diffs.
 */
export async function coderPromptParts(
  ctx: RunContext,
  input: { brief?: string; lastFailure?: string },
): Promise<{ context: string; task: string; heldOut?: { secrets: string[]; briefWithheld: boolean } }> {
  const pristine = await pristineScope(ctx);
  // A brief that quotes a held-out case is refused whole; any other such text is taken out where it is.
  const secrets = heldOutSecrets(ctx.manifest, pristine);
  const briefWithheld = input.brief !== undefined && leakedIn(input.brief, secrets).length > 0;
  const brief = briefWithheld ? WITHHELD_BRIEF : input.brief;
  const lastFailure = input.lastFailure === undefined ? undefined : withoutHeldOut(input.lastFailure, secrets).text;
  const before = new Map(pristine.map((f) => [f.path, f.content]));
  const changes: string[] = [];
  for (const path of scopePaths(ctx)) {
    const now = await ctx.deps.workspace.readFile(path);
    const was = before.get(path) ?? null;
    if (now !== was) changes.push(unifiedDiff({ path, before: was, after: now }));
  }
  return {
    context: coderContext({ manifest: ctx.manifest, files: pristine, tests: await readFiles(ctx.deps.workspace, ctx.manifest.testFiles) }),
    task: coderTask({ changes, brief, lastFailure }),
    ...(secrets.length ? { heldOut: { secrets, briefWithheld } } : {}),
  };
}
