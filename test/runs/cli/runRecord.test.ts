import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/main';
import { recordTarget, writeRecord } from '../../../src/cli/recordFile';
import type { RunState } from '../../../src/core/run/reducer';
import { renderCoderFile } from '../../../src/core/stages/coder/coderAnswer';
import { FakeAnthropic, reply, textReply, toolUse } from '../../support/fakeAnthropic';
import { answer } from '../../support/rungRuns';
import { anthropicEnv } from '../../support/fakeApiRuns';
import { copyFixture, fixturePath } from '../../support/tempWorkspace';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, new AbortController().signal);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

type Ran = { runId: string; state: RunState };
const ran = (r: { code: number; out: string; err: string }): Ran => {
  assert.ok(r.out.startsWith('{'), r.err);
  return JSON.parse(r.out) as Ran;
};

/** What must replay exactly: the outcome and why, each attempt's route and guard verdict, the calls by role. */
const shape = (s: RunState) => ({
  status: s.status,
  reason: s.finished?.reason,
  routes: s.attempts.map((a) => [a.n, a.route?.claimed ?? null, a.route?.route ?? null, a.route?.verdict ?? null]),
  rungs: s.attempts.map((a) => a.rungs.map((r) => r.rung)),
  calls: s.modelCalls.map((c) => [c.role, c.attempt, c.ok]),
  gates: s.gates.map((g) => [g.gate, g.status]),
});

/** Every file the run wrote, with its content at the end. */
function changedFiles(ws: string, s: RunState): Record<string, string | null> {
  const paths = new Set([
    ...s.attempts.flatMap((a) => a.written.map((w) => w.path)),
    ...s.repairs.flatMap((r) => r.files.map((f) => f.path)),
  ]);
  return Object.fromEntries(
    [...paths].sort().map((p) => [p, existsSync(path.join(ws, p)) ? readFileSync(path.join(ws, p), 'utf8') : null]),
  );
}

const POSTS = 'src/handlers/posts.ts';
const API_KEY = 'sk-ant-api03-RECORD-secret-key-0123456789abcdef';

describe('ticket-runner run --record FILE', function () {
  // Whole runs with every gate, twice: minutes on a loaded machine.
  this.timeout(600_000);

  it('refuses, before the run starts, an existing FILE without --force, a missing folder, and a non-script name', async () => {
    const ws = copyFixture();
    try {
      const run = (...extra: string[]) =>
        cli(['run', '.tickets/BLOG-1.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--gates', 'none', ...extra]);
      const exists = await run('--record', '.tickets/BLOG-1.script.json');
      assert.equal(exists.code, EXIT.error);
      assert.equal(exists.err, 'ticket-runner: .tickets/BLOG-1.script.json exists: pass --force to replace it, or --record another file');
      const noFolder = await run('--record', 'recordings/BLOG-1.script.json');
      assert.equal(noFolder.code, EXIT.error);
      assert.match(
        noFolder.err,
        /^ticket-runner: --record recordings\/BLOG-1\.script\.json: the folder .*recordings does not exist: create it first/,
      );
      const notJson = await run('--record', 'src/handlers/posts.ts', '--force');
      assert.equal(notJson.code, EXIT.error);
      assert.match(notJson.err, /a script is a JSON file/);
      const ticket = await run('--record', '.tickets/BLOG-1.ticket.json', '--force');
      assert.match(ticket.err, /a script is a JSON file/, 'the ticket itself is never overwritten by a record');
      assert.equal([exists, noFolder, notJson, ticket].map((r) => r.err.split('\n').length).join(), '1,1,1,1', 'one line each');
      assert.ok(!existsSync(path.join(ws.root, '.ticket-runner')), 'no run was started');
      assert.equal(readFileSync(path.join(ws.root, POSTS), 'utf8'), readFileSync(path.join(fixturePath('blog-api'), POSTS), 'utf8'));
      const elsewhere = await cli(['show', 'x', '--record', 'a.json', '--workspace', ws.root]);
      assert.equal(elsewhere.err, 'ticket-runner: --record is an option of run, not of show');
    } finally {
      ws.dispose();
    }
  });

  it('a scripted run, gates and reviewers included, recorded and replayed: the same outcome, routes, calls and code', async () => {
    const first = copyFixture();
    const second = copyFixture();
    try {
      mkdirSync(path.join(first.root, 'recordings'));
      const original = ran(
        await cli([
          'run',
          '.tickets/BLOG-1.ticket.json',
          '--workspace',
          first.root,
          '--model',
          'scripted',
          '--json',
          '--record',
          'recordings/BLOG-1.script.json',
        ]),
      );
      assert.equal(original.state.status, 'passed', JSON.stringify(original.state.finished));
      assert.deepEqual(shape(original.state).routes, [
        [1, 'code', 'code', 'notNeeded'],
        [2, null, null, null],
      ]);
      assert.deepEqual([...new Set(original.state.modelCalls.map((c) => c.role))].sort(), [
        'coder',
        'debugger',
        'reviewer',
        'testReviewer',
      ]);
      const script = readFileSync(path.join(first.root, 'recordings/BLOG-1.script.json'), 'utf8');
      assert.doesNotMatch(script, /"from":/, "the answers themselves, not the fixture's files");
      assert.match(script, new RegExp(`Recorded from run ${original.runId}`));

      // `record` after the run writes the same script from the log, refusing what it must.
      const kept = await cli(['record', original.runId, '--workspace', first.root]);
      assert.equal(kept.code, EXIT.error);
      assert.match(kept.err, /\.tickets\/BLOG-1\.script\.json exists: pass --force/);
      assert.match(
        (await cli(['record', original.runId, '--workspace', first.root, '--out', '../elsewhere.json'])).err,
        /outside the workspace/,
      );
      const recorded = await cli(['record', original.runId, '--workspace', first.root, '--out', 'recorded.script.json']);
      assert.equal(recorded.code, EXIT.passed, recorded.err);
      assert.equal(
        readFileSync(path.join(first.root, 'recorded.script.json'), 'utf8'),
        script,
        'record and run --record write the same script',
      );

      // A file made at the target between the check and the end of the run is kept, and said so.
      const target = recordTarget(first.root, 'late.script.json', false, '--record');
      writeFileSync(target, 'mine');
      await assert.rejects(
        writeRecord(first.root, original.state, target, false),
        /late\.script\.json appeared during the run: pass --force/,
      );
      assert.equal(readFileSync(target, 'utf8'), 'mine');

      // The replay reads the record as the ticket's script, in a fresh copy of the fixture.
      writeFileSync(path.join(second.root, '.tickets/BLOG-1.script.json'), script);
      // --force replaces an existing record: the replay records over the script it replays.
      const replay = await cli([
        'run',
        '.tickets/BLOG-1.ticket.json',
        '--workspace',
        second.root,
        '--model',
        'scripted',
        '--json',
        '--record',
        '.tickets/BLOG-1.script.json',
        '--force',
      ]);
      const replayed = ran(replay);
      assert.deepEqual(shape(replayed.state), shape(original.state));
      assert.deepEqual(changedFiles(second.root, replayed.state), changedFiles(first.root, original.state));
      assert.ok(Object.keys(changedFiles(first.root, original.state)).includes(POSTS));
      assert.match(replay.err, /Recorded \d+ model answer\(s\) of run .* into \.tickets\/BLOG-1\.script\.json/);
    } finally {
      first.dispose();
      second.dispose();
    }
  });

  it('a live run that edits with the text editor tool (a refused ambiguous edit, then a unique one), recorded and replayed: the same edits, outcome and code', async () => {
    const fake = await FakeAnthropic.start();
    const restoreEnv = anthropicEnv(API_KEY, fake.baseURL);
    const first = copyFixture();
    const second = copyFixture();
    try {
      // BLOG-13's own edits, now answered by the API: the first old_str occurs twice, the second once.
      const fixture = JSON.parse(readFileSync(path.join(first.root, '.tickets/BLOG-13.script.json'), 'utf8')) as {
        coder: { toolCalls?: { name: string; input: unknown }[] }[];
      };
      const [ambiguous, unique] = fixture.coder.flatMap((a) => a.toolCalls ?? []);
      fake.enqueue(
        reply([toolUse(ambiguous!.name, ambiguous!.input)]),
        reply([toolUse(unique!.name, unique!.input)]),
        textReply('slugify collapses runs of dashes.'),
      );
      const original = ran(
        await cli([
          'run',
          '.tickets/BLOG-13.ticket.json',
          '--workspace',
          first.root,
          '--model',
          'anthropic',
          '--gates',
          'none',
          '--json',
          '--record',
          'live.script.json',
        ]),
      );
      assert.equal(original.state.status, 'passed', JSON.stringify(original.state.finished));
      assert.equal(original.state.attempts[0]?.editRefusals?.length, 1, 'the ambiguous edit was refused and cost no attempt');
      const script = readFileSync(path.join(first.root, 'live.script.json'), 'utf8');
      writeFileSync(path.join(second.root, '.tickets/BLOG-13.script.json'), script);
      const replayed = ran(
        await cli(['run', '.tickets/BLOG-13.ticket.json', '--workspace', second.root, '--model', 'scripted', '--gates', 'none', '--json']),
      );
      assert.deepEqual(shape(replayed.state), shape(original.state));
      assert.deepEqual(replayed.state.attempts[0]?.editRefusals, original.state.attempts[0]?.editRefusals);
      assert.deepEqual(changedFiles(second.root, replayed.state), changedFiles(first.root, original.state));
    } finally {
      restoreEnv();
      await fake.close();
      first.dispose();
      second.dispose();
    }
  });

  it('a run against the Anthropic API (the local fake), recorded and replayed with --model scripted: the same outcome, routes and code', async () => {
    const fake = await FakeAnthropic.start();
    const restoreEnv = anthropicEnv(API_KEY, fake.baseURL);
    const first = copyFixture();
    const second = copyFixture();
    try {
      const wrong = answer(first.root, 'BLOG-1', 'attempt1.ts');
      const right = answer(first.root, 'BLOG-1', 'attempt2.ts');
      const fixture = JSON.parse(readFileSync(path.join(first.root, '.tickets/BLOG-1.script.json'), 'utf8')) as {
        debugger: { structured: unknown }[];
      };
      fake.enqueue(
        textReply(renderCoderFile(POSTS, wrong)),
        reply([toolUse('diagnosis', fixture.debugger[0]!.structured)]),
        textReply(renderCoderFile(POSTS, right)),
      );
      const original = ran(
        await cli([
          'run',
          '.tickets/BLOG-1.ticket.json',
          '--workspace',
          first.root,
          '--model',
          'anthropic',
          '--gates',
          'none',
          '--json',
          '--record',
          'live.script.json',
        ]),
      );
      assert.equal(fake.pending, 0, 'every answer of the fake API was asked for');
      assert.equal(original.state.model?.provider, 'anthropic');
      assert.equal(original.state.status, 'passed', JSON.stringify(original.state.finished));
      assert.deepEqual(shape(original.state).routes, [
        [1, 'code', 'code', 'notNeeded'],
        [2, null, null, null],
      ]);
      const script = readFileSync(path.join(first.root, 'live.script.json'), 'utf8');
      assert.ok(!script.includes(API_KEY), 'no key in the record');

      writeFileSync(path.join(second.root, '.tickets/BLOG-1.script.json'), script);
      const requests = fake.requests.length;
      const replayed = ran(
        await cli(['run', '.tickets/BLOG-1.ticket.json', '--workspace', second.root, '--model', 'scripted', '--gates', 'none', '--json']),
      );
      assert.equal(fake.requests.length, requests, 'the replay asks no API');
      assert.equal(replayed.state.model?.scripted, true);
      assert.deepEqual(shape(replayed.state), shape(original.state));
      assert.deepEqual(changedFiles(second.root, replayed.state), changedFiles(first.root, original.state));
      assert.notEqual(readFileSync(path.join(second.root, POSTS), 'utf8'), readFileSync(path.join(fixturePath('blog-api'), POSTS), 'utf8'));
    } finally {
      restoreEnv();
      await fake.close();
      first.dispose();
      second.dispose();
    }
  });
});
