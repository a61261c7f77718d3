import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/main';
import { CUT_INSTRUCTION } from '../../../src/core/stages/coder/editConversation';
import { EDITOR_TOOL } from '../../../src/core/stages/coder/editorTool';
import { FakeAnthropic, reply, text, textReply, toolUse, type RecordedRequest } from '../../support/fakeAnthropic';
import { light, loadEvents, runTicket } from '../../support/rungRuns';
import { copyFixture } from '../../support/tempWorkspace';
import { anthropicEnv, fakeApiRuns } from '../../support/fakeApiRuns';

/*
 * A real model on a real-size file, played by the local fake of the Messages API through the
 * real SDK: the Coder edits a 2,400-line module with Claude's text editor tool; a mistaken edit
 * comes back as a tool error and costs no attempt; an answer cut at the token limit and a
 * whole file with elided code never reach the disk. The bad answers come first.
 */

const API_KEY = 'sk-ant-api03-EDITS-secret-key-0123456789abcdef';
const BIG = 'src/lib/helpers.ts';

/** 400 small exported functions: a module past the size a whole-file answer can be written in. */
function bigModule(): string {
  const out: string[] = ['// Number helpers for the reports.', ''];
  for (let i = 0; i < 400; i++) {
    out.push(`/** Scales ${i}. */`, `export function helper${i}(x: number): number {`, `  const y = x * 2 + ${i};`, '  return y;', '}', '');
  }
  return out.join('\n');
}

/** A ticket on the big module: helper7 triples its input. No test reaches the other 399 functions. */
function writeBigTicket(root: string): string {
  mkdirSync(path.join(root, 'src/lib'), { recursive: true });
  writeFileSync(path.join(root, BIG), bigModule());
  const ticket = {
    id: 'BIG-1',
    title: 'helper7 triples its input',
    description: 'helper7 must compute x * 3 + 7 instead of x * 2 + 7.',
    scope: { write: [BIG], read: [] },
    acceptance: [{ id: 'AC1', text: 'helper7(1) is 10' }],
    testPlan: {
      files: [
        {
          path: 'test/ticket/BIG-1.test.ts',
          suite: 'BIG-1 helper7',
          imports: [{ from: '../../src/lib/helpers', names: ['helper7'] }],
          cases: [{ name: 'triples', criterion: 'AC1', expect: [{ kind: 'equal', actual: 'helper7(1)', expected: '10' }] }],
        },
      ],
    },
  };
  writeFileSync(path.join(root, '.tickets/BIG-1.ticket.json'), JSON.stringify(ticket, null, 2));
  return bigModule();
}

const ONE_EDIT = { command: 'str_replace', path: BIG, old_str: '  const y = x * 2 + 7;', new_str: '  const y = x * 3 + 7;' };

const messagesOf = (r: RecordedRequest | undefined) =>
  (r?.body['messages'] ?? []) as {
    role: string;
    content: { type: string; text?: string; content?: string; is_error?: boolean; cache_control?: unknown }[];
  }[];
const toolResults = (r: RecordedRequest | undefined) => messagesOf(r).flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));

describe("the Coder edits a real-size file through Claude's text editor tool (real SDK, fake API)", function () {
  this.timeout(60_000);
  const suite = fakeApiRuns(API_KEY);
  const provider = () => suite.provider();
  let fake: FakeAnthropic;
  let ws: { root: string };
  beforeEach(() => {
    ({ fake, ws } = suite);
  });

  it("one str_replace on a 2,400-line file passes, and the file is exactly the original with that change; the second turn reads the first one's prefix from the prompt cache, and the run's cost counts the reads at their price", async () => {
    const original = writeBigTicket(ws.root);
    fake.measureUsage();
    try {
      fake.enqueue(reply([text("I'll change helper7."), toolUse(EDITOR_TOOL, ONE_EDIT)]), textReply('helper7 now triples its input.'));
      const { state, runId } = await runTicket(ws.root, 'BIG-1', { modelPort: provider(), ...light });
      assert.equal(state.status, 'passed', JSON.stringify(state.finished));
      assert.equal(readFileSync(path.join(ws.root, BIG), 'utf8'), original.replace(ONE_EDIT.old_str, ONE_EDIT.new_str));
      const [first, second] = fake.requests;
      assert.deepEqual(
        (first?.body['tools'] as { type?: string; name: string }[]).find((t) => t.name === EDITOR_TOOL),
        { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
        "Claude's own tool, by its type",
      );
      assert.ok(
        messagesOf(first).some((m) => m.content.some((b) => b.cache_control)),
        'a cache breakpoint in the messages, beyond the system prompt',
      );
      assert.match(String(toolResults(second)[0]?.content), /^Edited src\/lib\/helpers\.ts/);
      assert.equal(state.attempts.length, 1);
      assert.deepEqual(
        state.modelCalls.map((c) => c.role),
        ['coder', 'coder'],
      );

      const [firstCall, secondCall] = (await loadEvents(ws.root, runId)).filter((e) => e.type === 'model.called');
      assert.ok(firstCall?.type === 'model.called' && secondCall?.type === 'model.called');
      assert.deepEqual(
        [firstCall.cacheReadTokens > 0, firstCall.cacheWriteTokens > 0],
        [false, true],
        'the first call writes the shared context',
      );
      const input = secondCall.inputTokens + secondCall.cacheReadTokens + secondCall.cacheWriteTokens;
      assert.ok(secondCall.cacheReadTokens / input > 0.9, `${secondCall.cacheReadTokens} of ${input} read from the cache`);
      // Sonnet's prices per token: input $3/M, a cache read a tenth of it, a write a quarter more, output $15/M.
      const expected =
        (secondCall.inputTokens * 3 +
          secondCall.cacheReadTokens * 0.3 +
          secondCall.cacheWriteTokens * 3.75 +
          secondCall.outputTokens * 15) /
        1e6;
      assert.ok(Math.abs(secondCall.costUsd - expected) < 1e-9, `${secondCall.costUsd} vs ${expected}`);
    } finally {
      fake.measureUsage(false);
    }
  });

  it('an ambiguous old_str comes back as a tool error saying how often it was found; the next, unique edit passes in the same attempt', async () => {
    const original = writeBigTicket(ws.root);
    fake.enqueue(
      reply([toolUse(EDITOR_TOOL, { command: 'str_replace', path: BIG, old_str: '  return y;', new_str: '  return y + 1;' })]),
      reply([toolUse(EDITOR_TOOL, ONE_EDIT)]),
      textReply('Done.'),
    );
    const { state, runId } = await runTicket(ws.root, 'BIG-1', { modelPort: provider(), ...light });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(readFileSync(path.join(ws.root, BIG), 'utf8'), original.replace(ONE_EDIT.old_str, ONE_EDIT.new_str));
    const [refused] = toolResults(fake.requests[1]);
    assert.equal(refused?.is_error, true);
    assert.match(String(refused?.content), /old_str was found 400 times .*Add lines around it/s);
    assert.equal(state.attempts.length, 1, 'a tool error costs no attempt');
    const events = await loadEvents(ws.root, runId);
    assert.ok(events.some((e) => e.type === 'edit.refused' && /found 400 times/.test(e.detail)));
  });

  it('hostile: a whole-file answer cut at max_tokens never reaches the disk; the model is asked for edits, and its edit passes', async () => {
    const original = writeBigTicket(ws.root);
    const cutWholeFile = '```ts file=src/lib/helpers.ts\n' + original.slice(0, 20_000).replace('x * 2 + 7', 'x * 3 + 7');
    fake.enqueue(
      reply([text(cutWholeFile)], { stopReason: 'max_tokens', usage: { output_tokens: 8192 } }),
      reply([toolUse(EDITOR_TOOL, ONE_EDIT)]),
      textReply('Done.'),
    );
    const { state, runId } = await runTicket(ws.root, 'BIG-1', { modelPort: provider(), ...light });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(
      readFileSync(path.join(ws.root, BIG), 'utf8'),
      original.replace(ONE_EDIT.old_str, ONE_EDIT.new_str),
      'the cut file was never written',
    );
    const events = await loadEvents(ws.root, runId);
    const cut = events.find((e) => e.type === 'answer.cut');
    assert.ok(cut?.type === 'answer.cut' && cut.outputTokens === 8192 && !cut.final, JSON.stringify(cut));
    const retry = messagesOf(fake.requests[1]);
    assert.ok(JSON.stringify(retry.at(-1)).includes(CUT_INSTRUCTION.slice(0, 50)), 'the next call asks for edits');
    assert.ok(!JSON.stringify(retry).includes('```ts file='), 'the cut text is not sent back');
  });

  it('hostile: a whole file that keeps only the changed function between "existing code" markers is refused before it is written, and the run does not pass', async () => {
    const original = writeBigTicket(ws.root);
    const lazy = [
      '```ts file=src/lib/helpers.ts',
      '// ... existing code ...',
      'export function helper7(x: number): number {',
      '  const y = x * 3 + 7;',
      '  return y;',
      '}',
      '// ... existing code ...',
      '```',
    ].join('\n');
    // The same lazy answer after the refusal: the Coder's turn ends with it, and the write gate refuses it again.
    fake.enqueue(textReply(lazy), textReply(lazy), textReply('{"not": "a diagnosis"}'), textReply('still not'));
    const { state, runId } = await runTicket(ws.root, 'BIG-1', { modelPort: provider(), ...light, budget: { attempts: 1 } });
    assert.notEqual(state.status, 'passed');
    assert.equal(readFileSync(path.join(ws.root, BIG), 'utf8'), original, 'none of the 399 functions was deleted');
    const events = await loadEvents(ws.root, runId);
    assert.ok(
      events.some((e) => e.type === 'edit.refused' && e.command === 'answer' && /drops 399 exported declaration/.test(e.detail)),
      'the Coder was told why',
    );
    assert.ok(
      events.some((e) => e.type === 'write.refused' && e.reason === 'elided'),
      'the write gate refused it',
    );
    assert.match(JSON.stringify(messagesOf(fake.requests[1]).at(-1)), /was not written: it replaces code with 2 placeholder comments/);
  });

  it("a retry's request repeats the first request's cached prefix byte for byte, and carries the earlier attempt's change as a diff", async () => {
    writeBigTicket(ws.root);
    const wrong = { ...ONE_EDIT, new_str: '  const y = x * 4 + 7;' };
    fake.enqueue(
      reply([toolUse(EDITOR_TOOL, wrong)]),
      textReply('Done.'),
      // The Debugger's two unusable answers: no diagnosis, and the failure goes back to the Coder.
      textReply('{}'),
      textReply('{}'),
      reply([toolUse(EDITOR_TOOL, { ...ONE_EDIT, old_str: wrong.new_str })]),
      textReply('Done.'),
    );
    const { state } = await runTicket(ws.root, 'BIG-1', { modelPort: provider(), ...light });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const coder = fake.requests.filter((r) => (r.body['tools'] as { name: string }[] | undefined)?.some((t) => t.name === EDITOR_TOOL));
    assert.equal(coder.length, 4);
    const [first, , retry] = coder;
    const prefix = (r: RecordedRequest) => JSON.stringify([r.body['tools'], r.body['system'], messagesOf(r)[0]?.content[0]]);
    assert.ok(messagesOf(first)[0]?.content[0]?.cache_control, 'the shared context ends at a breakpoint');
    assert.equal(prefix(retry!), prefix(first!), "attempt 2 sends attempt 1's prefix byte for byte, so the API reads it from the cache");
    const task = String(messagesOf(retry)[0]?.content[1]?.text);
    assert.match(task, /-  const y = x \* 2 \+ 7;\n\+  const y = x \* 4 \+ 7;/, 'the earlier change, as a diff');
    assert.match(task, /The last attempt failed/);
  });
});

describe('ticket-runner run --model anthropic, with every answer cut at the token limit', function () {
  this.timeout(60_000);

  it('hostile: the cut answers never reach the disk, the output says so in plain words, and the run does not pass', async () => {
    const ws = copyFixture();
    const fake = await FakeAnthropic.start();
    const restoreEnv = anthropicEnv(API_KEY, fake.baseURL);
    try {
      const original = writeBigTicket(ws.root);
      const cut = () =>
        reply([text('```ts file=src/lib/helpers.ts\n' + original.slice(0, 30_000).replace('x * 2 + 7', 'x * 3 + 7'))], {
          stopReason: 'max_tokens',
          usage: { output_tokens: 8192 },
        });
      // Three cut answers end the Coder's turn; the Debugger's two unusable answers leave no diagnosis.
      fake.enqueue(cut(), cut(), cut(), textReply('no'), textReply('no'));
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(
        ['run', '.tickets/BIG-1.ticket.json', '--workspace', ws.root, '--model', 'anthropic', '--gates', 'none', '--attempts', '1'],
        { out: (s) => out.push(s), err: (s) => err.push(s) },
        new AbortController().signal,
      );
      assert.notEqual(code, EXIT.passed);
      assert.equal(readFileSync(path.join(ws.root, BIG), 'utf8'), original);
      assert.match(err.join('\n'), /answer was cut off at the model's token limit \(8192 tokens\): its unfinished part was not written/);
    } finally {
      restoreEnv();
      await fake.close();
      ws.dispose();
    }
  });
});
