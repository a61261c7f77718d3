import assert from 'node:assert/strict';
import { ModelScript, ScriptedModel, ScriptExhaustedError } from '../../../src/node/models/scripted';
import type { ModelRequest } from '../../../src/core/ports/model';

/**
 * When a scripted run goes another way than its recording, the run ends with what happened in
 * plain words (the recorded answers do not cover this run) and its likely cause when one is
 * known, never the script's internals ("add an answer to ...").
 */
describe('the scripted model, when its recording does not cover the run', () => {
  const script = ModelScript.parse({
    coder: [{ text: 'ok', expect: { attempt: 1 } }],
    debugger: [{ structured: { kind: 'code' } }],
  });
  const ask = (role: ModelRequest['role'], attempt: number): ModelRequest => ({
    role,
    attempt,
    system: 'system',
    messages: [{ role: 'user', content: 'prompt' }],
  });
  const signal = new AbortController().signal;
  const model = (cause?: string) =>
    new ScriptedModel(
      script,
      () => '',
      '.tickets/BLOG-4.script.json',
      { debugger: 1 },
      async () => cause,
    );
  const failure = async (m: ScriptedModel, request: ModelRequest): Promise<string> => {
    const err = await m.complete(request, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ScriptExhaustedError, String(err));
    return err.message;
  };

  it('says the recorded answers do not cover the run, and names the answer it lacked', async () => {
    const text = await failure(model(), ask('debugger', 2));
    assert.equal(
      text,
      'the recorded answers in .tickets/BLOG-4.script.json do not cover this run: it asked the Debugger for answer 2 (attempt 2), and the recording holds 1. ' +
        'Recorded answers replay the run they were recorded from, on the project as it was then; this run went another way.',
    );
    assert.doesNotMatch(text, /add an answer/i);
  });

  it("adds the likely cause it is given: an earlier run's change still in the workspace", async () => {
    const cause = "Likely cause: BLOG-1's change (run r1, passed) is still in the workspace, and the recording was made without it.";
    assert.match(
      await failure(model(cause), ask('debugger', 2)),
      new RegExp(`this run went another way\\. ${cause.replace(/[().]/g, '\\$&')}$`),
    );
  });

  it('says so too when a recorded answer was made for another call', async () => {
    const text = await failure(model(), ask('coder', 2));
    assert.match(
      text,
      /^the recorded answers in \.tickets\/BLOG-4\.script\.json do not cover this run: the Coder's answer 1 was recorded for attempt 1, and this call is for attempt 2\. /,
    );
  });
});
