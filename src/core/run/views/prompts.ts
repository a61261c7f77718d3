import type { ModelAdaptation } from '../../schema/events';
import type { RunState } from '../reducer';
import type { ModelCallState } from '../runState';
import { modelInfoLabel } from './report';
import { parseAnswerRecord, parsePromptRecord } from '../../schema/modelRecord';

/**
 * Every model call of a run with its whole prompt and raw answer, as stored in the run's blobs
 * (`show --prompts`): what each role read and said, so a surprising diagnosis can be audited.
 * Calls from logs older than the record say so.
 */
export async function formatPromptRecords(state: RunState, blob: (hash: string) => Promise<string>): Promise<string> {
  const out: string[] = [];
  for (const [i, call] of state.modelCalls.entries()) out.push(...(await modelCallLines(call, i, state.modelCalls.length, blob)), '');
  return out.join('\n');
}

/** One call's record: its heading, whole prompt, the provider's receipts and the raw answer (the webview opens it alone). */
export async function formatModelCall(state: RunState, index: number, blob: (hash: string) => Promise<string>): Promise<string> {
  const call = state.modelCalls[index];
  if (!call) throw new RangeError(`run ${state.runId} has no model call #${index + 1} (it has ${state.modelCalls.length})`);
  return (await modelCallLines(call, index, state.modelCalls.length, blob)).join('\n') + '\n';
}

async function modelCallLines(call: ModelCallState, i: number, total: number, blob: (hash: string) => Promise<string>): Promise<string[]> {
  const out: string[] = [];
  out.push(
    `=== call ${i + 1} of ${total}: ${call.role}, attempt ${call.attempt}, ${modelInfoLabel(call.model)}${call.ok ? '' : ` — failed: ${call.error ?? 'no answer'}`} ===`,
  );
  if (!call.prompt) {
    out.push('(this log did not record the prompt)');
    return out;
  }
  const prompt = parsePromptRecord(await blob(call.prompt), call.prompt);
  if (prompt.system) out.push('--- system ---', prompt.system);
  for (const m of prompt.messages ?? []) {
    out.push(`--- ${m.role}${m.toolCallId ? ` (result of ${m.toolCallId})` : ''} ---`, m.content);
    if (m.toolCalls?.length) out.push(`tool calls: ${JSON.stringify(m.toolCalls)}`);
  }
  const offered = [
    ...(prompt.tools ?? []).map((t) => t.name),
    ...(prompt.structured ? [`${prompt.structured.name} (the answer's form)`] : []),
  ];
  if (offered.length) out.push(`--- tools: ${offered.join(', ')}${prompt.thinking ? '; extended thinking on' : ''} ---`);
  if (call.adaptations?.length) out.push('--- how the provider fitted the call to its API ---', ...call.adaptations.map(adaptationLine));
  if (call.answer) {
    const answer = parseAnswerRecord(await blob(call.answer), call.answer);
    out.push(`--- answer (${answer.stopReason ?? 'end'}) ---`);
    if (answer.text) out.push(answer.text);
    if (answer.structured !== undefined) out.push(JSON.stringify(answer.structured, null, 2));
    if (answer.toolCalls?.length) out.push(`tool calls: ${JSON.stringify(answer.toolCalls)}`);
  }
  return out;
}

/** One receipt of `model.called`'s adaptations, in words. */
export function adaptationLine(a: ModelAdaptation): string {
  switch (a.kind) {
    case 'thinkingMapped':
      return `thinking: ${a.detail} (modelOptions ${JSON.stringify(a.modelOptions)})`;
    case 'thinkingUnavailable':
      return `thinking: ${a.detail}`;
    case 'proseSuppressed':
      return `instruction added to the prompt: "${a.instruction}"`;
    case 'answerExtracted':
      return `answer taken from the text (${a.from === 'fencedJson' ? 'a fenced JSON block' : 'a bare JSON object'}; ${a.skippedChars} characters of prose around it left)`;
    case 'answerNotExtracted':
      return `no answer taken from the text: ${a.detail}`;
  }
}
