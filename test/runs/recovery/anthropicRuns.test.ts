import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/main';
import { renderCoderFile } from '../../../src/core/stages/coder/coderAnswer';
import { CODE_ONLY_INSTRUCTION } from '../../../src/core/stages/coder/coderCall';
import { StreamAccumulator } from '../../../src/node/models/anthropic/streamAccumulator';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { FakeAnthropic, overloaded, reply, stall, text, textReply, thinking, toolUse } from '../../support/fakeAnthropic';
import { answer, calls, light, loadEvents, rungEvents, runTicket, summaryWithImport } from '../../support/rungRuns';
import { copyFixture } from '../../support/tempWorkspace';
import { fakeApiRuns } from '../../support/fakeApiRuns';

/**
 * Whole runs with the real SDK against the local fake of the Messages API: the faults of
 * the "done when" list, seen through the pipeline and its log rather than the
 * provider alone, and the CLI's `--model anthropic` path.
 */

const API_KEY = 'sk-ant-api03-RUNS-secret-key-0123456789abcdef';
const SUMMARY = 'src/format/postSummary.ts';
const POSTS = 'src/handlers/posts.ts';

describe('runs against the fake Anthropic API (real SDK)', function () {
  // Whole runs: on two cores beside the tier's other files one took over 30 s. The stall itself is timed by the run's own deadline.
  this.timeout(120_000);
  const suite = fakeApiRuns(API_KEY);
  const provider = () => suite.provider();
  let fake: FakeAnthropic;
  let ws: { root: string };
  beforeEach(() => {
    ({ fake, ws } = suite);
  });

  it('a stalled stream: rung 1 stops it and retries with thinking on and a code-only instruction', async () => {
    fake.enqueue(
      stall(),
      reply([thinking('The page helper maps getPosts items.'), text(renderCoderFile(SUMMARY, summaryWithImport(ws.root)))]),
    );
    const { runId, state } = await runTicket(ws.root, 'BLOG-5', { modelPort: provider(), ...light, recovery: { startDeadlineMs: 300 } });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const events = await loadEvents(ws.root, runId);
    assert.deepEqual(
      rungEvents(events).map((e) => [e.rung, e.trigger, e.thinking]),
      [[1, 'noStart', true]],
    );
    const [first, second] = fake.requests.map((r) => r.body);
    assert.equal(first?.['stream'], true, 'the Coder is streamed, so it can be watched');
    assert.equal(first?.['thinking'], undefined);
    assert.deepEqual(
      (first?.['tools'] as { name: string }[]).map((t) => t.name),
      ['str_replace_based_edit_tool', 'run_tests'],
      'the file editor, and rung 4',
    );
    assert.deepEqual(second?.['thinking'], { type: 'enabled', budget_tokens: 8000 });
    assert.ok(JSON.stringify(second?.['messages']).includes(CODE_ONLY_INSTRUCTION.slice(0, 60)));
    assert.deepEqual(
      state.modelCalls.map((c) => c.ok),
      [false, true],
    );
  });

  it('529 until the retries are spent: the run stops with modelError, and its log is whole', async () => {
    fake.enqueue(overloaded(), overloaded(), overloaded());
    const { runId, state, logPath } = await runTicket(ws.root, 'BLOG-5', { modelPort: provider(), ...light });
    assert.equal(state.status, 'error');
    const reason = state.finished?.reason;
    assert.ok(reason?.kind === 'modelError' && reason.role === 'coder', JSON.stringify(reason));
    assert.match(reason.message, /overloaded \(529\) after 2 retries/);
    assert.equal(fake.requests.length, 3);
    const events = await loadEvents(ws.root, runId);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'run.started',
        'manifest.built',
        'baseline.recorded',
        'projectTests.baseline',
        'file.baselined',
        'files.written',
        'tests.materialized',
        'model.called',
        'run.finished',
      ],
    );
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
      'no gap in the log',
    );
    const call = events.find((e) => e.type === 'model.called');
    assert.ok(call?.type === 'model.called' && !call.ok && call.retries === 2);
    assert.ok(!readFileSync(logPath, 'utf8').includes(API_KEY), 'the key is not in the log');
  });

  it('invalid tool JSON from the Debugger: rejected by zod, a failed diagnosis on the code path, not a crash', async () => {
    const wrong = answer(ws.root, 'BLOG-1', 'attempt1.ts');
    const right = answer(ws.root, 'BLOG-1', 'attempt2.ts');
    fake.enqueue(
      textReply(renderCoderFile(POSTS, wrong)),
      // A tool input the model cut short (a string, not an object), then one of the wrong shape.
      reply([toolUse('diagnosis', '{"kind": "code", "claim": "the guard')]),
      reply([toolUse('diagnosis', { kind: 'code', claim: 42 })]),
      textReply(renderCoderFile(POSTS, right)),
    );
    const { state } = await runTicket(ws.root, 'BLOG-1', { modelPort: provider(), ...light });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const a1 = state.attempts[0]!;
    assert.equal(a1.diagnosis, null);
    assert.equal(a1.rejectedDiagnoses.length, 2);
    assert.ok(a1.rejectedDiagnoses.every((r) => /does not match its schema/.test(r.reason)));
    assert.deepEqual([a1.route?.route, a1.route?.verdict], ['code', 'abstained']);
    assert.deepEqual(
      state.attempts.map((a) => a.rungs.map((r) => r.rung)),
      [[], [2]],
    );
    assert.deepEqual([calls(state, 'coder'), calls(state, 'debugger')], [2, 2]);
  });

  it('a cancel in mid-stream ends the run as cancelled, with the call on record', async () => {
    fake.enqueue(stall('```ts file=src/format/postSummary.ts\nimport'));
    const controller = new AbortController();
    const running = runTicket(ws.root, 'BLOG-5', { modelPort: provider(), ...light, signal: controller.signal });
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    const { runId, state } = await running;
    assert.equal(state.status, 'cancelled');
    assert.deepEqual(state.finished?.reason, { kind: 'cancelled' });
    const events = await loadEvents(ws.root, runId);
    assert.equal(events.at(-1)?.type, 'run.finished');
    assert.ok(events.some((e) => e.type === 'model.called' && !e.ok && /cancel/i.test(e.error ?? '')));
    assert.equal(rungEvents(events).length, 0, 'a cancel is not rung 1');
  });
});

describe('ticket-runner run --model anthropic', function () {
  this.timeout(120_000);
  const saved = { key: process.env['ANTHROPIC_API_KEY'], url: process.env['ANTHROPIC_BASE_URL'] };
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => {
    ws.dispose();
    for (const [name, value] of [
      ['ANTHROPIC_API_KEY', saved.key],
      ['ANTHROPIC_BASE_URL', saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, new AbortController().signal);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('with no key, fails before any work with a message that says what to do', async () => {
    delete process.env['ANTHROPIC_API_KEY'];
    const r = await cli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'anthropic']);
    assert.equal(r.code, EXIT.error);
    assert.match(r.err, /^ticket-runner: ANTHROPIC_API_KEY is not set\. .*export ANTHROPIC_API_KEY=/);
    assert.equal(r.out, '');
    assert.ok(!existsSync(path.join(ws.root, '.ticket-runner')), 'no run was started');
  });

  it('is the default: with no --model and no key, one line names --model scripted for the demo, and nothing starts', async () => {
    delete process.env['ANTHROPIC_API_KEY'];
    const r = await cli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root]);
    assert.equal(r.code, EXIT.error);
    assert.equal(r.err.split('\n').length, 1, r.err);
    assert.match(r.err, /^ticket-runner: ANTHROPIC_API_KEY is not set\. .*run with --model scripted \(a test and demo tool\)\.$/);
    assert.equal(r.out, '');
    assert.ok(!existsSync(path.join(ws.root, '.ticket-runner')), 'no run was started');
  });

  it('with a key, runs a fixture ticket end to end against the API at ANTHROPIC_BASE_URL', async () => {
    const fake = await FakeAnthropic.start();
    try {
      // The fixture's own answer, without the import: the real checks' code fix adds it.
      fake.enqueue(textReply(renderCoderFile(SUMMARY, answer(ws.root, 'BLOG-5', 'attempt1.ts'))));
      process.env['ANTHROPIC_API_KEY'] = API_KEY;
      process.env['ANTHROPIC_BASE_URL'] = fake.baseURL;
      // The end-of-ticket gates (their reviewers are models too) are another suite's subject: off here when the CLI has them.
      const noGates = (await cli(['run', '--help'])).out.includes('--gates') ? ['--gates', 'none'] : [];
      const r = await cli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'anthropic', '--json', ...noGates]);
      assert.equal(r.code, EXIT.passed, r.err);
      const { state, logPath } = JSON.parse(r.out) as {
        state: {
          status: string;
          model: { provider: string; scripted: boolean };
          usage: { calls: number; inputTokens: number; costUsd: number };
        };
        logPath: string;
      };
      assert.equal(state.status, 'passed');
      assert.deepEqual([state.model.provider, state.model.scripted], ['anthropic', false]);
      assert.equal(state.usage.calls, 1);
      assert.ok(state.usage.costUsd > 0, 'the call was priced');
      assert.equal(fake.requests[0]?.headers['authorization'], `Bearer ${API_KEY}`, 'the key from the environment');
      assert.match(r.err, /model: anthropic claude-/);
      assert.ok(!readFileSync(logPath, 'utf8').includes(API_KEY));
      assert.equal(fake.pending, 0);
    } finally {
      await fake.close();
    }
  });
});

describe('Anthropic stream progress for rung 1', () => {
  it('reports thinking and tool-input deltas as activity, and only text as text', () => {
    const texts: string[] = [];
    let activity = 0;
    const acc = new StreamAccumulator(
      (d) => texts.push(d),
      () => activity++,
    );
    // The events as the API sends them; only the fields the accumulator reads matter here.
    const add = (event: object) => acc.add(event as RawMessageStreamEvent);
    add({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
    add({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } });
    add({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'run_tests', input: {} } });
    add({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"files":' } });
    assert.deepEqual([activity, texts], [2, []]);
    add({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '', citations: null } });
    add({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'ok' } });
    assert.deepEqual([activity, texts], [3, ['ok']]);
  });
});
