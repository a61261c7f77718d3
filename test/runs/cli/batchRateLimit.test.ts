import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BatchReport } from '../../../src/core/run/views/batchReport';
import { startDistCli, STACK_LINE } from '../../support/cliProcess';
import { FakeAnthropic, textReply } from '../../support/fakeAnthropic';
import { tinyProject, TINY_ANSWER } from '../../support/tinyProject';

type Report = BatchReport & { batchDir: string; calls: { maxConcurrent: number | null; peakConcurrent: number } };

interface Called {
  type: string;
  ok?: boolean;
  retries?: number;
  costUsd?: number;
}

/** One ticket's events, from the copy of its log in the batch's folder. */
function events(report: Report, runId: string | null | undefined): Called[] {
  if (!runId) return [];
  return readFileSync(path.join(report.batchDir, 'runs', runId, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Called);
}

/** Every model.called event of every run of the batch. */
function calls(report: Report): Called[] {
  return report.tickets.flatMap((t) => events(report, t.runId).filter((e) => e.type === 'model.called'));
}

/**
 * For a failed count: each ticket that called the model other than once, with its run's events
 * (blob hashes left out), so that the failure says which stage made the extra calls and why.
 */
/**
 * One event of a run, short; a failed test run whole but its command, so that a failure under load
 * says why (its cases' messages and the runner's output).
 */
function eventLine(e: Called): string {
  const result = e.type === 'tests.ran' ? (e as { result?: Record<string, unknown> }).result : undefined;
  if (result && result.status !== 'passed') return JSON.stringify({ ...e, result: { ...result, command: undefined } });
  return JSON.stringify({ ...e, prompt: undefined, answer: undefined }).slice(0, 400);
}

function unexpectedCalls(report: Report): string {
  return report.tickets
    .map((t) => ({ t, log: events(report, t.runId) }))
    .filter(({ log }) => log.filter((e) => e.type === 'model.called').length !== 1)
    .map(({ t, log }) => [`${t.ticketId} (${t.outcome}):`, ...log.map((e) => `  ${eventLine(e)}`)].join('\n'))
    .join('\n');
}

/**
 * Enough tickets that the 8 slots fill three times over, so every slot's later tickets meet the
 * cap beside the others' (each ticket is a whole run: more rounds would cost CPU, not coverage).
 */
const TICKETS = 24;
/** The model's time to answer: long enough that the calls of 8 tickets overlap. */
const LATENCY_MS = 800;
/** The same, where the test needs the calls of 8 tickets started together to meet at the API. */
const UNCAPPED_LATENCY_MS = 10_000;

const API = (fake: FakeAnthropic) => ({
  env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-dummy-batch', ANTHROPIC_BASE_URL: fake.baseURL },
});

/**
 * Many tickets through the real SDK (`--model anthropic`) against a local fake of the
 * Messages API that refuses, with 429 and retry-after, any request past its concurrency
 * limit, as the API does past a rate limit. The batch's shared cap per key keeps every
 * ticket's calls under it: no call is refused, none fails.
 */
describe('batch: the shared concurrency cap per API key and the batch dollar cap (dist/cli.js, --model anthropic, fake API)', function () {
  this.timeout(600_000);
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await FakeAnthropic.start();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('without a cap, the same fake API refuses the calls of 8 tickets started together (the SDK retries them, and may give up)', async () => {
    const project = tinyProject(8);
    try {
      // Answers slow enough that the 8 tickets' calls overlap even when their starts spread over
      // seconds, as they do with the rest of the tier running beside them.
      fake.respondWith(() => textReply(TINY_ANSWER)).limitConcurrency({ max: 2, retryAfterSeconds: '0.05' }, UNCAPPED_LATENCY_MS);
      const r = await startDistCli(
        ['batch', '.tickets', '--workspace', project.root, '--parallel', '8', '--model', 'anthropic', '--gates', 'none', '--json'],
        API(fake),
      ).done;
      console.log(`      ${fake.requests.length} requests, at most ${fake.peakOpen} open, ${fake.rateLimited} refused`);
      assert.ok(fake.rateLimited > 0, 'the fake refuses what goes past its limit');
      const report = JSON.parse(r.stdout) as Report;
      assert.ok(
        calls(report).some((c) => (c.retries ?? 0) > 0 || c.ok === false),
        'some call was retried or failed',
      );
    } finally {
      project.dispose();
    }
  });

  it('24 tickets, 8 at a time (three rounds of slots), against an API that allows 2 concurrent requests: --max-concurrent-calls 2 meets no 429, no call fails, all pass', async () => {
    const project = tinyProject(TICKETS);
    try {
      fake.respondWith(() => textReply(TINY_ANSWER)).limitConcurrency({ max: 2, retryAfterSeconds: '0.05' }, LATENCY_MS);
      const started = Date.now();
      const b = startDistCli(
        [
          'batch',
          '.tickets',
          '--workspace',
          project.root,
          '--parallel',
          '8',
          '--max-concurrent-calls',
          '2',
          '--model',
          'anthropic',
          '--gates',
          'none',
          '--json',
        ],
        API(fake),
      );
      const r = await b.done;
      console.log(
        `      ${TICKETS} tickets in ${((Date.now() - started) / 1000).toFixed(1)} s; ${fake.requests.length} requests, at most ${fake.peakOpen} open, ${fake.rateLimited} refused`,
      );
      assert.doesNotMatch(r.stderr, STACK_LINE);
      assert.equal(r.code, 0, r.stderr.slice(-2000));
      const report = JSON.parse(r.stdout) as Report;
      assert.equal(
        report.totals.passed,
        TICKETS,
        JSON.stringify(report.tickets.filter((t) => t.outcome !== 'passed').map((t) => [t.ticketId, t.stop])),
      );
      assert.equal(fake.rateLimited, 0, "no request went past the fake API's limit");
      assert.ok(fake.peakOpen <= 2, `at most 2 requests open at once, saw ${fake.peakOpen}`);
      assert.deepEqual(report.calls, { maxConcurrent: 2, peakConcurrent: 2 });
      const made = calls(report);
      // One Coder call a ticket: a ticket whose first test run failed would make more. One did,
      // under load, when the sandbox runtime's own mount points in the workspace (the batch's slot
      // runs there) were taken for the test run's changes; what failed is printed whole.
      assert.equal(made.length, TICKETS, unexpectedCalls(report));
      assert.ok(
        made.every((c) => c.ok === true && c.retries === 0),
        'every call answered at the first try',
      );
    } finally {
      project.dispose();
    }
  });

  it('--max-dollars over the batch: once its calls have spent it, running tickets stop before their next call and no ticket starts; passed by one call at most', async () => {
    const project = tinyProject(6);
    try {
      fake.respondWith(() => textReply(TINY_ANSWER));
      const cap = 0.001;
      const b = startDistCli(
        [
          'batch',
          '.tickets',
          '--workspace',
          project.root,
          '--parallel',
          '3',
          '--max-dollars',
          String(cap),
          '--model',
          'anthropic',
          '--gates',
          'none',
          '--out',
          path.join(project.root, '..', 'out'),
          '--json',
        ],
        API(fake),
      );
      const r = await b.done;
      assert.doesNotMatch(r.stderr, STACK_LINE);
      assert.equal(r.code, 1, r.stderr.slice(-2000));
      const report = JSON.parse(r.stdout) as Report;
      const made = calls(report);
      const perCall = made[0]!.costUsd!;
      // Each call can cost far more than the cap (its whole answer allowance): none ran beside another.
      // The first spent less than the cap, the second passed it: two calls, then none.
      assert.equal(fake.requests.length, 2);
      assert.equal(made.length, 2);
      assert.deepEqual(
        { ...report.totals, costUsd: 0 },
        { tickets: 6, costUsd: 0, passed: 2, failed: 1, needsOperator: 0, cancelled: 0, error: 0, running: 0, notStarted: 3 },
      );
      assert.ok(report.budget, 'the report has the batch budget');
      assert.equal(report.budget.maxDollars, cap);
      assert.equal(report.budget.reached, true);
      assert.ok(
        Math.abs(report.budget.spentUsd - 2 * perCall) < 1e-12 && Math.abs(report.totals.costUsd - report.budget.spentUsd) < 1e-12,
        JSON.stringify(report.budget),
      );
      assert.ok(report.budget.spentUsd - cap < perCall, 'passed by less than one call');
      const stopped = report.tickets.find((t) => t.outcome === 'failed')!;
      assert.match(stopped.stop, /^the batch's dollar budget is spent \(\$0\.0011 of \$0\.001\): stopped before its next model call$/);
      assert.equal(stopped.exitCode, 1);
      for (const t of report.tickets.filter((x) => x.outcome === 'notStarted'))
        assert.match(t.stop, /^not started: the batch's dollar budget was spent \(\$0\.0011 of \$0\.001\)$/);
      const xml = readFileSync(path.join(project.root, '..', 'out', 'batch-junit.xml'), 'utf8');
      assert.match(
        xml,
        /<property name="maxDollars" value="0\.001"\/><property name="spentUsd" value="0\.001092"\/><property name="budgetReached" value="true"\/>/,
      );
      assert.match(
        xml,
        /<failure message="the batch's dollar budget is spent \(\$0\.0011 of \$0\.001\): stopped before its next model call" type="failed">/,
      );
    } finally {
      project.dispose();
    }
  });
});
