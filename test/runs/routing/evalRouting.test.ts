import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { RoutingCase } from '../../../src/core/schema/routingCase';
import { summarize, type RoutingReport } from '../../../src/core/eval/report';
import { evalCases } from '../../../src/core/eval/runEval';
import { route } from '../../../src/core/stages/router/router';
import { scriptedCaseModel } from '../../../src/node/routingCorpus/caseModel';
import { loadCorpus } from '../../../src/node/routingCorpus/corpusFiles';
import { runDistCli, STACK_LINE, startDistCli } from '../../support/cliProcess';
import { FakeAnthropic, reply, toolUse } from '../../support/fakeAnthropic';
import { REPO_ROOT } from '../../support/tempWorkspace';

/**
 * The routing benchmark, as CI runs it: the built CLI over the corpus with the scripted
 * Debugger. The scripted answers are fixed, so every figure is known; a change to a guard, to
 * the Debugger stage or to the corpus moves them, and this test says which.
 */

const CORPUS = path.join(REPO_ROOT, 'test', 'routing-corpus');
const row = (code: number, manifest: number, test: number, ticket: number) => ({ code, manifest, test, ticket, escalate: 0 });

const scripted = async (cases: RoutingCase[], router = route): Promise<RoutingReport> =>
  summarize('scripted', await evalCases(cases, { modelFor: scriptedCaseModel, router, signal: new AbortController().signal }));

describe('eval-routing: the routing benchmark', function () {
  this.timeout(120_000);
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'tr-eval-routing-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('the corpus holds at least 60 cases, at least 10 per route, and no path of the machine it was captured on', () => {
    const cases = loadCorpus(CORPUS);
    assert.ok(cases.length >= 60, `${cases.length} cases`);
    for (const r of ['code', 'manifest', 'test', 'ticket']) assert.ok(cases.filter((c) => c.gold.route === r).length >= 10, r);
    assert.ok(cases.filter((c) => c.origin.startsWith('captured:')).length >= 10);
    const text = JSON.stringify(cases);
    assert.doesNotMatch(text, new RegExp(REPO_ROOT.replace(/[/.]/g, '\\$&')));
    assert.doesNotMatch(text, new RegExp(tmpdir().replace(/[/.]/g, '\\$&') + '/'));
  });

  it('--model scripted --json through the built CLI: the exact matrix, accuracy and guard scores', () => {
    const r = runDistCli(['eval-routing', '--model', 'scripted', '--json', '--out', path.join(tmp, 'a.json')]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as RoutingReport;
    assert.equal(report.cases, 64);
    assert.deepEqual(report.byGoldRoute, { code: 25, manifest: 15, test: 12, ticket: 12 });
    // A stack frame outside the scope no longer confirms "manifest is wrong" (router.ts, manifestFact): the
    // frame-on-call-path claims are vetoed (no operator asked to widen the scope for the Coder's bad call), and
    // the frame-out-of-scope claims, whose facts are the same, go to code too: a missed route, never a wrong repair.
    assert.deepEqual(report.matrix, { code: row(25, 0, 0, 0), manifest: row(8, 7, 0, 0), test: row(4, 0, 8, 0), ticket: row(4, 0, 0, 8) });
    assert.deepEqual(report.accuracy, { debugger: 0.6406, routed: 0.75 });
    assert.deepEqual(report.guards, {
      manifest: { claims: 19, rightConfirmations: 7, wrongConfirmations: 0, rightVetoes: 6, wrongVetoes: 6, precision: 1, recall: 0.5385 },
      test: { claims: 20, rightConfirmations: 8, wrongConfirmations: 0, rightVetoes: 9, wrongVetoes: 3, precision: 1, recall: 0.7273 },
      ticket: { claims: 12, rightConfirmations: 8, wrongConfirmations: 0, rightVetoes: 2, wrongVetoes: 2, precision: 1, recall: 0.8 },
    });
    assert.equal(report.errors, 0);
    // Tokens per case are counted (the scripted model estimates them); a replay costs nothing.
    assert.ok(report.results.every((x) => x.inputTokens > 0 && x.outputTokens > 0 && x.costUsd === 0));
    assert.equal(report.usage.costUsd, 0);
    // The retries of the Debugger stage ran: a bad quote rejected once, two answers that are no diagnosis.
    assert.deepEqual(
      report.results.filter((x) => x.rejected).map((x) => [x.id.replace(/-(blog-api|inventory-jest).*/, ''), x.rejected, x.claimed]),
      [
        ['variant-no-usable-diagnosis', 2, null],
        ['variant-retry-after-bad-quote', 1, 'code'],
        ['variant-retry-after-bad-quote', 1, 'code'],
      ],
    );
    assert.deepEqual(JSON.parse(readFileSync(path.join(tmp, 'a.json'), 'utf8')), report);
  });

  it('prints the matrix and the guard table for a person', () => {
    const r = runDistCli(['eval-routing', '--model', 'scripted']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Routing benchmark: 64 cases, model scripted/m);
    assert.match(r.stdout, /^gold \\ routed\s+code\s+manifest\s+test\s+ticket\s+escalate$/m);
    assert.match(r.stdout, /^manifest\s+8\s+7\s+0\s+0\s+0$/m);
    assert.match(r.stdout, /^Debugger accuracy \(claimed kind = gold\): 64\.1% \(41\/64\)$/m);
    assert.match(r.stdout, /^test\s+20\s+8\s+0\s+9\s+3\s+100\.0%\s+72\.7%$/m);
    assert.match(r.stdout, /^variant-frame-on-call-path-blog-api-BLOG-1-a1\s+code\s+manifest\s+code\s+overridden\s/m);
    assert.match(r.stdout, /^variant-frame-out-of-scope-blog-api-BLOG-1-a1\s+manifest\s+manifest\s+code\s+overridden.*MISS$/m);
  });

  it('a weakened guard changes the numbers: the benchmark can fail', async () => {
    const cases = loadCorpus(CORPUS);
    const real = await scripted(cases);
    // The type probe's fact dropped: "test expects an impossible value" is no longer confirmed.
    const noProbe = await scripted(cases, (i) => route({ ...i, impossibleExpectations: undefined }));
    assert.deepEqual(noProbe.matrix.test, row(6, 0, 6, 0));
    assert.deepEqual([noProbe.guards.test.rightConfirmations, noProbe.guards.test.wrongVetoes, noProbe.guards.test.recall], [6, 5, 0.5455]);
    assert.ok(noProbe.accuracy.routed < real.accuracy.routed);
    writeFileSync(path.join(tmp, 'real.json'), JSON.stringify(real));
    writeFileSync(path.join(tmp, 'noProbe.json'), JSON.stringify(noProbe));
    // No guard at all (every claim trusted): the wrong claims go to the wrong owner.
    const trusting = await scripted(cases, (i) =>
      i.diagnosis ? { claimed: i.diagnosis.kind, route: i.diagnosis.kind, guard: { verdict: 'confirmed', detail: 'trusted' } } : route(i),
    );
    assert.deepEqual([trusting.guards.test.wrongConfirmations, trusting.guards.test.precision], [9, 0.55]);
    assert.deepEqual(trusting.matrix.code, row(8, 6, 9, 2));
  });

  it('--compare prints the deltas between two reports (those the weakened-guard test wrote)', () => {
    const r = runDistCli(['eval-routing', '--compare', path.join(tmp, 'real.json'), path.join(tmp, 'noProbe.json')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Routed accuracy: {3}75\.0% → 71\.9% \(-3\.1 pts\)$/m);
    assert.match(r.stdout, /^test guard: precision 100\.0% → 100\.0% \(\+0\.0 pts\), recall 72\.7% → 54\.5% \(-18\.2 pts\)$/m);
    assert.match(r.stdout, /^Matrix cells that changed \(gold→routed\): test→code 4 → 6 \(\+2\), test→test 8 → 6 \(-2\)$/m);
    assert.match(
      r.stdout,
      /^Cases routed differently: shop-esm-SHOP-8-a1 \(gold test\) test → code, variant-impossible-expectation-blog-api-BLOG-1-a1 \(gold test\) test → code$/m,
    );
    const json = runDistCli(['eval-routing', '--compare', path.join(tmp, 'real.json'), path.join(tmp, 'noProbe.json'), '--json']);
    const delta = JSON.parse(json.stdout) as { accuracy: { routed: number }; changed: unknown[] };
    assert.deepEqual([delta.accuracy.routed, delta.changed.length], [-0.0312, 2]);
  });

  it('bad input: one line that says what is wrong, no stack trace', () => {
    const cases = [
      [['eval-routing', '--model', 'scripted', '--corpus', path.join(tmp, 'nowhere')], /is not a routing corpus: it has no cases\/ folder/],
      [['eval-routing', '--model', 'gpt'], /--model must be scripted or anthropic, got "gpt"/],
      [['eval-routing', '--compare', path.join(tmp, 'a.json')], /--compare needs two report files/],
      [
        ['eval-routing', '--compare', path.join(tmp, 'a.json'), path.join(CORPUS, 'cases', 'blog-api-BLOG-1-a1.json')],
        /is not an eval-routing report/,
      ],
      [['eval-routing', '--model', 'anthropic', '--corpus', CORPUS], /ANTHROPIC_API_KEY is not set/],
    ] as const;
    for (const [args, message] of cases) {
      const { ANTHROPIC_API_KEY: _key, ...env } = process.env;
      const r = runDistCli([...args], { env });
      assert.equal(r.code, 3, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, STACK_LINE);
    }
    const broken = path.join(tmp, 'broken');
    cpSync(CORPUS, broken, { recursive: true });
    const file = path.join(broken, 'cases', 'blog-api-BLOG-1-a1.json');
    const c = JSON.parse(readFileSync(file, 'utf8')) as { gold: { route: string } };
    c.gold.route = 'tests';
    writeFileSync(file, JSON.stringify(c));
    const r = runDistCli(['eval-routing', '--model', 'scripted', '--corpus', broken]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /blog-api-BLOG-1-a1\.json is not a valid routing case: \$\.gold\.route: /);
  });

  it('--model anthropic: the real SDK against a local Messages API, tokens and cost per case', async () => {
    const ids = ['blog-api-BLOG-2-a1', 'blog-api-BLOG-4-a1', 'variant-code-looks-like-test-blog-api-BLOG-1-a1'];
    const small = path.join(tmp, 'small');
    mkdirSync(path.join(small, 'cases'), { recursive: true });
    cpSync(path.join(CORPUS, 'blobs'), path.join(small, 'blobs'), { recursive: true });
    for (const id of ids) cpSync(path.join(CORPUS, 'cases', `${id}.json`), path.join(small, 'cases', `${id}.json`));
    const byId = new Map(loadCorpus(small).map((c) => [c.id, c]));
    const fake = await FakeAnthropic.start();
    try {
      // The model answers what each case's recording says: the SDK path must carry it to the same routes.
      for (const id of [...ids].sort()) {
        const recorded = (byId.get(id)!.answers[0] as { structured: unknown }).structured;
        fake.enqueue(reply([toolUse('diagnosis', recorded)], { usage: { input_tokens: 1000, output_tokens: 200 } }));
      }
      const cli = startDistCli(['eval-routing', '--model', 'anthropic', '--corpus', small, '--json'], {
        env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test-eval-routing', ANTHROPIC_BASE_URL: fake.baseURL },
      });
      const r = await cli.done;
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as RoutingReport;
      assert.equal(report.cases, 3);
      assert.deepEqual(
        report.results.map((x) => [x.id, x.claimed, x.routed, x.inputTokens, x.outputTokens]),
        [
          ['blog-api-BLOG-2-a1', 'test', 'test', 1000, 200],
          ['blog-api-BLOG-4-a1', 'manifest', 'manifest', 1000, 200],
          ['variant-code-looks-like-test-blog-api-BLOG-1-a1', 'test', 'code', 1000, 200],
        ],
      );
      assert.ok(
        report.results.every((x) => x.costUsd > 0),
        'a real model is priced',
      );
      assert.match(report.model, /^anthropic /);
      assert.equal(fake.requests.length, 3);
      const body = fake.requests[0]!.body as { messages: { content: unknown }[]; tool_choice: { name: string } };
      assert.equal(body.tool_choice.name, 'diagnosis');
      assert.match(JSON.stringify(body.messages[0]!.content), /## Manifest/);
    } finally {
      await fake.close();
    }
  });
});
