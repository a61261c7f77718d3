import type { RunState } from '../../../core/run/reducer';
import type { ModelScript, ScriptedAnswer } from './scriptSchema';
import { parseAnswerRecord, parsePromptRecord } from '../../../core/schema/modelRecord';

/**
 * A script for the scripted provider, made from a run's record: every model call's raw answer
 * (kept in the run's store, `model.called`'s `answer`), by role and in call order, each checked
 * on replay against the attempt and thinking mode it was given in. A run made with a real model
 * becomes a fixture that replays it with no key; a call that failed replays as the fault it was.
 */
export async function recordScript(state: RunState, blob: (hash: string) => Promise<string>): Promise<ModelScript> {
  const script: ModelScript = {
    $comment: `Recorded from run ${state.runId} (${state.model?.provider ?? 'unknown'} ${state.model?.model ?? ''}) by ticket-runner record: a test and demo replay.`,
    coder: [],
    debugger: [],
    reviewer: [],
    testReviewer: [],
  };
  for (const call of state.modelCalls) {
    const prompt = call.prompt ? parsePromptRecord(await blob(call.prompt), call.prompt) : {};
    const expect = { attempt: call.attempt, promptIncludes: [], ...(prompt.thinking ? { thinking: true } : {}) };
    let answer: ScriptedAnswer;
    if (!call.ok) answer = { expect, fault: call.error?.startsWith('stopped:') ? 'stall' : 'transportError' };
    else if (!call.answer)
      throw new Error(
        `the run's call ${call.role} (attempt ${call.attempt}) has no recorded answer: the log predates the record of answers`,
      );
    else {
      const raw = parseAnswerRecord(await blob(call.answer), call.answer);
      answer = {
        expect,
        ...(raw.text ? { text: raw.text } : {}),
        ...(raw.structured !== undefined ? { structured: raw.structured } : {}),
        ...(raw.toolCalls?.length ? { toolCalls: raw.toolCalls.map((c) => ({ name: c.name, input: c.input })) } : {}),
        ...(raw.stopReason === 'maxTokens' ? { stopReason: 'maxTokens' as const } : {}),
      };
    }
    (script[call.role] ??= []).push(answer);
  }
  return script;
}

/** The script as the file holds it: what `record`, `run --record` and the editor's Save Run as Script write. */
export async function recordScriptText(state: RunState, blob: (hash: string) => Promise<string>): Promise<string> {
  return JSON.stringify(await recordScript(state, blob), null, 2) + '\n';
}
