import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { startDistCli, until, type CliResult } from '../../support/cliProcess';
import { FakeAnthropic, pacedText, type RecordedRequest } from '../../support/fakeAnthropic';
import { hugeAnswer } from '../../support/streamAnswer';
import { copyFixture } from '../../support/tempWorkspace';

interface Logged {
  type: string;
  outcome?: string;
  reason?: { kind: string; budget?: string; limit?: number };
}

const lastEvent = (ws: string): Logged => {
  const runs = path.join(ws, '.ticket-runner', 'runs');
  const [id] = readdirSync(runs);
  const lines = readFileSync(path.join(runs, id!, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n');
  return JSON.parse(lines.at(-1)!) as Logged;
};

/** The answer would take a minute to arrive: every stop below must land in seconds, mid-stream. */
const STREAM_MS = 60_000;
const ANSWER = hugeAnswer(3_000_000);
/** Generous for a shared 2-core machine, and still far below the stream's minute. */
const PROMPT_MS = 10_000;

/**
 * A huge Coder answer streams slowly through the real SDK from the fake Messages API, into
 * the real CLI (dist/cli.js): the wall-time budget and SIGINT stop the run while it is still
 * coming, the log says why, and the connection to the model is closed, not left to drain.
 */
describe('the stops take effect during a huge streamed answer (dist/cli.js, --model anthropic)', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  let fake: FakeAnthropic;

  beforeEach(async () => {
    ws = copyFixture();
    fake = await FakeAnthropic.start();
    fake.enqueue(pacedText(ANSWER, STREAM_MS));
  });
  afterEach(async () => {
    await fake.close();
    ws.dispose();
  });

  const start = (extra: string[]) =>
    startDistCli(['run', '.tickets/BLOG-1.ticket.json', '--workspace', ws.root, '--model', 'anthropic', '--gates', 'none', ...extra], {
      env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test-stream-stops', ANTHROPIC_BASE_URL: fake.baseURL },
    });

  /** The Coder's request, once its answer has started to stream. */
  async function streaming(run: { done: Promise<CliResult> }, chars = 100_000): Promise<RecordedRequest> {
    let ended = false;
    void run.done.then(() => (ended = true));
    await until('the answer to stream', () => ended || (fake.requests[0]?.streamedChars ?? 0) >= chars, 60_000);
    if (ended) assert.fail(`the run ended before the answer streamed: ${(await run.done).stderr}`);
    return fake.requests[0]!;
  }

  it('--max-wall-ms ends the run within seconds of the limit, with the wall-time stop in the log', async () => {
    // Room for the steps before the Coder's call (about 5 s alone, 20 s with the rest of the tier
    // running beside it), so that the limit falls mid-stream, well before the stream's minute.
    const limit = 30_000;
    const t0 = Date.now();
    const run = start(['--max-wall-ms', String(limit)]);
    const request = await streaming(run, 1);
    const r = await run.done;
    const took = Date.now() - t0;
    console.log(
      `      ended ${took} ms after the start (limit ${limit} ms), after ${request.streamedChars} of ${ANSWER.length} characters`,
    );
    assert.equal(r.code, 1, r.stderr);
    assert.ok(took < limit + PROMPT_MS, `ended ${took} ms after the start`);
    assert.ok(request.streamedChars < ANSWER.length / 2, 'stopped mid-answer');
    const last = lastEvent(ws.root);
    assert.equal(last.type, 'run.finished');
    assert.deepEqual(
      [last.outcome, last.reason?.kind, last.reason?.budget, last.reason?.limit],
      ['failed', 'budgetExceeded', 'wallMs', limit],
    );
    await until('the model connection to close', () => request.closedEarly, 2_000);
  });

  it('SIGINT mid-stream exits 130 within seconds, the log ends cancelled, and the model request is aborted', async () => {
    const run = start([]);
    const request = await streaming(run);
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const r = await run.done;
    const took = Date.now() - t0;
    console.log(`      exited ${took} ms after SIGINT, after ${request.streamedChars} of ${ANSWER.length} characters`);
    assert.equal(r.code, 130, r.stderr);
    assert.ok(took < PROMPT_MS, `exited ${took} ms after SIGINT`);
    assert.ok(request.streamedChars < ANSWER.length / 2, 'stopped mid-answer');
    const last = lastEvent(ws.root);
    assert.deepEqual([last.type, last.outcome, last.reason?.kind], ['run.finished', 'cancelled', 'cancelled']);
    await until('the model connection to close', () => request.closedEarly, 2_000);
  });
});
