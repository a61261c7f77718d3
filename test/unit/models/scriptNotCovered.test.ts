import assert from 'node:assert/strict';
import { ModelScript, ScriptedModel, ScriptExhaustedError } from '../../../src/node/models/scripted';
import type { ModelRequest } from '../../../src/core/ports/model';
import { causeWords } from '../../../src/node/models/scripted/likelyCause';

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

/** The likely cause names only what the recording read otherwise: an earlier change to a file of the ticket's scope. */
describe('the likely cause of a recording that no longer fits', () => {
  const blog1 = { runId: '20261207-100000-aaaaaa', ticketId: 'BLOG-1', status: 'passed' as const, files: ['src/handlers/posts.ts'] };
  const blog12 = { runId: '20261207-100500-bbbbbb', ticketId: 'BLOG-12', status: 'passed' as const, files: ['src/format/slug.ts'] };
  const current = { runId: '20261207-101000-cccccc' };

  it("names an earlier change to the ticket's files as the likely cause, with the rollbacks in order", () => {
    const words = causeWords([blog12, blog1], current, new Set(['src/store/postStore.ts', 'src/handlers/posts.ts']))!;
    assert.match(
      words,
      /^Likely cause: BLOG-1's change \(run 20261207-100000-aaaaaa, passed\) is still in the workspace, and the recording was made without it\. /,
    );
    assert.ok(!words.includes('BLOG-12'), 'a change outside the scope is not named as the cause');
    assert.match(words, /ticket-runner rollback 20261207-101000-cccccc, then ticket-runner rollback 20261207-100000-aaaaaa\)/);
  });

  it('an earlier change outside them is said as a fact, never as the cause', () => {
    const words = causeWords([blog12], current, new Set(['src/handlers/posts.ts']))!;
    assert.doesNotMatch(words, /Likely cause/);
    assert.match(
      words,
      /^BLOG-12's change \(run [^)]+\) is still in the workspace, though outside this ticket's files; .* what else made this run go another way is not known\.$/,
    );
  });

  it('with no scope to go by, every earlier change counts; with none, there is no cause to say', () => {
    assert.match(causeWords([blog12], undefined, undefined)!, /^Likely cause: BLOG-12's change/);
    assert.equal(causeWords([], current, new Set()), undefined);
  });
});
