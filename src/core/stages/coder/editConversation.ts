import type { RunContext } from '../common/context';
import type { ModelMessage, ToolCall } from '../../ports/model';
import { RUN_TESTS_TOOL, type RunTestsTool } from './runTestsTool';
import { type CoderFile, parseCoderAnswer } from './coderAnswer';
import { EDITOR_TOOL, EditorSession, editorToolSpec } from './editorTool';
import { describeElision, findElision, ticketWords } from './elision';
import { checkWrite } from './writeGate';
import { withoutHeldOut } from './heldOutLeaks';
import { type Turn, watchedCall } from './watchedCall';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;

/*
 * The Coder's edit conversation: one call of the Coder, turn by turn, with its tools answered
 * and its candidate kept in memory until the model ends its turn.
 */

/** One Coder call's input: the prompt in its cached and per-call parts. */
export interface CoderCall {
  attempt: number;
  system: string;
  /** The part of the prompt every call of the run shares (cached), and this attempt's. */
  context: string;
  task: string;
  /** The attempt's thinking mode; rung 1's retry flips it. */
  thinking: boolean;
  /** The held-out cases' texts no message may carry, and whether the brief was refused for one. */
  heldOut?: { secrets: string[]; briefWithheld: boolean };
}

/** What the Coder is told after an answer cut at the token limit: its whole files are lost, small edits are not. */
export const CUT_INSTRUCTION =
  'Your answer was cut off at the token limit, and its unfinished part was thrown away: nothing of it was written. Do not write whole files. ' +
  'Make the remaining changes with small str_replace_based_edit_tool edits (str_replace or insert), one change at a time.';

/**
 * How many model turns one Coder call may take: the edit conversation's bound. Each turn is a
 * model call, so the run's call, token, dollar and time budgets stop a long one first.
 */
export const MAX_CODER_TURNS = 24;
/** Answers cut at the token limit in a row before the turn is given up. */
const MAX_CUTS = 2;
/** Times a final answer with elided whole files goes back to the Coder within one call. */
const MAX_ELISION_BOUNCES = 1;

export interface Conversation {
  turn: Turn;
  files: CoderFile[];
  /** The file editor changed something: the last answer's own words are a summary, not the code. */
  edited: boolean;
}

/** Echoed back in the assistant turn: a cut tool call's input is raw text, and the API wants an object. */
const echoable = (calls: ToolCall[]): ToolCall[] =>
  calls.map((c) => (c.input !== null && typeof c.input === 'object' ? c : { ...c, input: {} }));

/**
 * The Coder's conversation for one call: a watched turn, and while the model calls tools (the
 * file editor, rung 4's `run_tests`), their results and another turn, until it ends its turn.
 * Edits go to the attempt's candidate in memory; nothing is written here. An answer cut at the
 * token limit is named in the log, its unfinished part dropped, and the model is asked to go on
 * with small edits. A final answer whose whole files elide code goes back once with the reason.
 * The last message carries a cache breakpoint, so each turn reads the ones before from the cache.
 */
export async function converse(ctx: RunContext, call: CoderCall, runTests: RunTestsTool | undefined): Promise<Conversation> {
  const editor = new EditorSession(ctx.manifest, (path) => ctx.deps.workspace.readFile(path), ticketWords(ctx.manifest));
  const messages: ModelMessage[] = [
    { role: 'user', content: call.context, cache: true },
    { role: 'user', content: call.task },
  ];
  const tools = [editorToolSpec(), ...(runTests ? [runTests.spec] : [])];
  const maxTurns = MAX_CODER_TURNS + (runTests ? runTests.limit : 0);
  let cuts = 0;
  let bounces = 0;
  if (call.heldOut?.briefWithheld) await ctx.log.emit({ type: 'heldOut.withheld', attempt: call.attempt, from: 'brief', count: 1 });
  for (let turn = 1; ; turn++) {
    await keepHeldOut(ctx, call, messages);
    const result = await watchedCall(
      ctx,
      {
        role: 'coder',
        attempt: call.attempt,
        system: call.system,
        messages: withRollingBreakpoint(messages),
        thinking: call.thinking,
        tools,
      },
      // After tool results, a short summary is the expected end of the turn.
      turn === 1,
    );
    if (result.kind === 'stopped') return { turn: result, files: [], edited: false };
    const { response } = result;
    const cut = response.stopReason === 'maxTokens';
    const done = (files: CoderFile[]): Conversation => ({ turn: result, files, edited: editor.changed });
    if (cut) {
      cuts++;
      const final = cuts > MAX_CUTS || turn >= maxTurns;
      await ctx.log.emit({
        type: 'answer.cut',
        attempt: call.attempt,
        role: 'coder',
        outputTokens: response.usage.outputTokens,
        final,
        detail: `the answer stopped at the token limit after ${response.text.length} characters of text and ${response.toolCalls.length} tool call(s)`,
      });
      // The whole files of a cut answer are never used; the edits made before it stand.
      if (final) return done(editor.files());
    } else cuts = 0;
    if (response.toolCalls.length === 0 && !cut) {
      const fenced = parseCoderAnswer(response.text);
      const elided = await elidedFiles(ctx, editor, fenced);
      if (elided.length && bounces < MAX_ELISION_BOUNCES && turn < maxTurns) {
        bounces++;
        for (const e of elided)
          await ctx.log.emit({ type: 'edit.refused', attempt: call.attempt, command: 'answer', path: e.path, detail: e.detail });
        messages.push({ role: 'assistant', content: response.text }, { role: 'user', content: elided.map((e) => e.detail).join('\n') });
        continue;
      }
      return done(mergeFiles(editor.files(), fenced));
    }
    if (turn >= maxTurns) return done(editor.files());
    messages.push({
      role: 'assistant',
      content: cut ? (response.toolCalls.length ? '' : '[answer cut off at the token limit]') : response.text,
      toolCalls: echoable(response.toolCalls),
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
    });
    for (const toolCall of response.toolCalls) messages.push(await answerTool(ctx, call.attempt, toolCall, editor, runTests));
    if (cut) messages.push({ role: 'user', content: CUT_INSTRUCTION });
  }
}

/**
 * The last check before each of the Coder's turns: no message holds a held-out case's text,
 * whatever put it there (the code under test printing it into a tool's output, a failure). Each
 * is taken out where it is, in place, so the turns after see the same messages.
 */
async function keepHeldOut(ctx: RunContext, call: CoderCall, messages: ModelMessage[]): Promise<void> {
  const secrets = call.heldOut?.secrets ?? [];
  if (!secrets.length) return;
  for (const [i, m] of messages.entries()) {
    const { text, count } = withoutHeldOut(m.content, secrets);
    if (!count) continue;
    messages[i] = { ...m, content: text };
    await ctx.log.emit({ type: 'heldOut.withheld', attempt: call.attempt, from: m.role === 'tool' ? 'tool' : 'prompt', count });
  }
}

/** One tool call's result: the editor's, rung 4's, or an error naming the tools there are. */
async function answerTool(
  ctx: RunContext,
  attempt: number,
  toolCall: ToolCall,
  editor: EditorSession,
  runTests: RunTestsTool | undefined,
): Promise<ToolMessage> {
  if (typeof toolCall.input === 'string') {
    return {
      role: 'tool',
      toolCallId: toolCall.id,
      isError: true,
      content: 'This call was cut off at the token limit before its input was complete, and was not made. Make it again, smaller.',
    };
  }
  if (toolCall.name === EDITOR_TOOL) {
    const reply = await editor.answer(toolCall);
    const refusal = reply.isError ? editor.refusals.at(-1) : undefined;
    if (refusal)
      await ctx.log.emit({ type: 'edit.refused', attempt, command: refusal.command, path: refusal.path, detail: refusal.detail });
    return reply;
  }
  if (runTests && toolCall.name === RUN_TESTS_TOOL) return runTests.answer(toolCall);
  const names = [EDITOR_TOOL, ...(runTests ? [RUN_TESTS_TOOL] : [])].join(', ');
  return { role: 'tool', toolCallId: toolCall.id, isError: true, content: `unknown tool "${toolCall.name}": the tools are ${names}` };
}

/**
 * The messages with one rolling breakpoint on the newest tool result besides the fixed one on
 * the shared context: the API takes at most four, and the newest covers every turn before it.
 */
function withRollingBreakpoint(messages: ModelMessage[]): ModelMessage[] {
  const lastTool = messages.map((m) => m.role).lastIndexOf('tool');
  return messages.map((m, i) => (m.role === 'tool' ? { ...m, cache: i === lastTool } : m));
}

/** The fenced whole files of a final answer that would delete code the ticket did not ask to touch. */
async function elidedFiles(ctx: RunContext, editor: EditorSession, fenced: CoderFile[]): Promise<{ path: string; detail: string }[]> {
  const out: { path: string; detail: string }[] = [];
  for (const f of fenced) {
    // A file the gate refuses is refused for that, and recorded so; it is never written either way.
    if (!checkWrite(ctx.manifest, f.path).ok) continue;
    const before = (await editor.contentOf(f.path)) ?? null;
    if (before === null) continue;
    const finding = findElision(before, f.content, ticketWords(ctx.manifest));
    if (finding) out.push({ path: f.path, detail: describeElision(f.path, finding) });
  }
  return out;
}

/** The editor's files, then the final answer's whole files: a later whole file of a path wins. */
function mergeFiles(edited: CoderFile[], fenced: CoderFile[]): CoderFile[] {
  const byPath = new Map(edited.map((f) => [f.path, f]));
  for (const f of fenced) {
    byPath.delete(f.path);
    byPath.set(f.path, f);
  }
  return [...byPath.values()];
}
