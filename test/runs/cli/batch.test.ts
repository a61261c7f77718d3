import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunState } from '../../../src/core/run/reducer';
import { batchEntry, type BatchEntry, type BatchReport } from '../../../src/core/run/views/batchReport';
import { runDistCli, startDistCli, STACK_LINE, until } from '../../support/cliProcess';
import { copyFixtureInGit, git } from '../../support/gitFixture';
import { copyFixture, treeHash } from '../../support/tempWorkspace';

/** The pids of a process's children (the batch's ticket processes), from ps. */
const childPids = (pid: number): number[] =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);

/** Alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^Z/.test(execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim());
  } catch {
    return false;
  }
}

/** THREE, 2 at a time, until both running tickets have started their runs; their processes' pids. */
async function twoRunning(ws: string, out?: string) {
  const b = startDistCli([
    'batch',
    ...THREE,
    '--workspace',
    ws,
    '--parallel',
    '2',
    ...(out ? ['--out', out] : []),
    '--model',
    'scripted',
    '--gates',
    'none',
  ]);
  // Each running ticket's first progress line is its run's id.
  await until('two runs to start', () => /\[BLOG-1\] run \S+: ticket/.test(b.stderr()) && /\[BLOG-3\] run \S+: ticket/.test(b.stderr()));
  const pids = childPids(b.child.pid!);
  assert.equal(pids.length, 2, 'one process per slot');
  return { b, pids };
}

type Report = BatchReport & { batchDir: string; mode: string };

const readReport = (dir: string): Report => JSON.parse(readFileSync(path.join(dir, 'batch-report.json'), 'utf8')) as Report;
const byId = (r: Report, id: string): BatchEntry => r.tickets.find((t) => t.ticketId === id)!;
const testcases = (xml: string) =>
  [...xml.matchAll(/<testcase [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/testcase>/g)].map((m) => ({ name: m[1]!, body: m[2]! }));
/** What a batch and a merge of the same runs must agree on: all but where the trees are. */
const comparable = (e: BatchEntry) => ({
  ...e,
  workspace: null,
  branch: null,
  corrections: e.corrections.map((c) => ({ requestId: c.requestId, target: c.target, fact: c.fact })),
});

// Fixture tickets that end fast with --gates none --attempts 1: BLOG-5 passes on attempt 1,
// BLOG-3's ticket is wrong (a correction request waits), BLOG-1 needs a second attempt it is not given.
const THREE = ['.tickets/BLOG-1.ticket.json', '.tickets/BLOG-3.ticket.json', '.tickets/BLOG-5.ticket.json'];
const FAST = ['--model', 'scripted', '--gates', 'none', '--attempts', '1'];

/** What running a ticket alone and in a batch must agree on (a correction's id holds its run's). */
const verdictOf = (e: BatchEntry) => ({
  outcome: e.outcome,
  exitCode: e.exitCode,
  attempts: e.attempts,
  routes: e.routes,
  stop: e.stop.split(e.runId ?? '\0').join('<run>'),
});

describe('ticket-runner batch (dist/cli.js)', function () {
  this.timeout(180_000);

  // The batch of THREE in a git copy, run once and read by the tests that compare with it.
  let three: { ws: ReturnType<typeof copyFixtureInGit>; head: string; out: string; r: ReturnType<typeof runDistCli> } | undefined;
  const batchOfThree = () => {
    if (!three) {
      const ws = copyFixtureInGit();
      const out = path.join(ws.root, '..', 'out');
      const head = git(ws.root, 'rev-parse', 'HEAD');
      three = { ws, head, out, r: runDistCli(['batch', ...THREE, '--workspace', ws.root, '--parallel', '2', '--out', out, ...FAST]) };
    }
    return three;
  };
  after(() => three?.ws.dispose());

  it('runs 3 tickets 2 at a time in worktrees: a pass kept as a branch, a request to settle, a failure; the reports agree with merge-report', () => {
    const { ws, head, out, r } = batchOfThree();
    {
      assert.equal(r.code, 1, r.stderr);
      assert.doesNotMatch(r.stderr + r.stdout, STACK_LINE);
      // Progress on stderr, tagged per ticket.
      assert.match(r.stderr, /batch: 3 ticket\(s\), 2 at a time, each in its own git worktree/);
      assert.match(r.stderr, /\[BLOG-5\] run \S+: passed/);

      const report = readReport(out);
      assert.equal(report.mode, 'worktree');
      assert.deepEqual(
        report.tickets.map((t) => [t.ticketId, t.outcome, t.exitCode]),
        [
          ['BLOG-1', 'failed', 1],
          ['BLOG-3', 'needsOperator', 2],
          ['BLOG-5', 'passed', 0],
        ],
      );
      assert.deepEqual(
        { ...report.totals, costUsd: 0 },
        { tickets: 3, costUsd: 0, passed: 1, failed: 1, needsOperator: 1, cancelled: 0, error: 0, running: 0, notStarted: 0 },
      );
      const [b1, b3, b5] = ['BLOG-1', 'BLOG-3', 'BLOG-5'].map((id) => byId(report, id)) as [BatchEntry, BatchEntry, BatchEntry];
      assert.deepEqual(b1.routes, ['code']);
      assert.deepEqual(b3.routes, ['ticket']);
      assert.equal(b1.stop, 'attempts budget exceeded (1 of 1)');
      assert.ok(b5.wallMs > 0 && b5.attempts === 1);

      // The passed ticket's change lives on its branch, and its worktree is gone.
      assert.equal(b5.branch, 'ticket/BLOG-5');
      assert.equal(b5.workspace, null);
      const changed = git(ws.root, 'diff', '--name-only', 'HEAD', 'ticket/BLOG-5').split('\n').filter(Boolean).sort();
      assert.deepEqual(changed, ['src/format/postSummary.ts', 'test/ticket/BLOG-5.test.ts']);
      // The failed ticket's tree is removed; the waiting one's stays, where its resolve commands point.
      assert.equal(b1.workspace, null);
      assert.ok(b3.workspace && existsSync(path.join(b3.workspace, '.ticket-runner', 'runs', b3.runId!)));
      const worktrees = git(ws.root, 'worktree', 'list', '--porcelain');
      assert.ok(
        worktrees.includes(b3.workspace) && !worktrees.includes(`trees${path.sep}BLOG-1`) && !worktrees.includes(`trees${path.sep}BLOG-5`),
        worktrees,
      );
      assert.equal(b3.corrections.length, 1);
      const c = b3.corrections[0]!;
      assert.equal(c.accept, `ticket-runner resolve ${b3.runId} accept --workspace ${b3.workspace} --model scripted`);
      assert.match(
        r.stdout,
        new RegExp(`Correction requests to settle:[\\s\\S]*${c.requestId}[\\s\\S]*resolve ${b3.runId} reject --reason`),
      );
      // The workspace itself is as it was: every write went to a tree.
      assert.equal(git(ws.root, 'status', '--porcelain', '--untracked-files=all'), '');
      assert.equal(git(ws.root, 'rev-parse', 'HEAD'), head);

      // JUnit: one case per ticket; the failure's message is the stop reason; "needs the operator" is not a failure.
      const xml = readFileSync(path.join(out, 'batch-junit.xml'), 'utf8');
      assert.match(xml, /<testsuites name="ticket-runner" tests="3" failures="1" errors="0" skipped="1"/);
      const cases = testcases(xml);
      assert.equal(cases.length, 3);
      assert.match(cases[0]!.body, /<failure message="attempts budget exceeded \(1 of 1\)" type="failed">/);
      assert.match(cases[1]!.body, /<skipped message="needs the operator: correction [^"]* proposed: the ticket is wrong/);
      assert.doesNotMatch(cases[2]!.body, /<failure|<error|<skipped/);

      // The printed resolve command works where it says: rejecting ends that run as failed.
      const [, , runId, verb, ...rest] = c.reject.replace("'...'", 'not-now').split(' ');
      const settled = runDistCli(['resolve', runId!, verb!, ...rest]);
      assert.equal(settled.code, 1, settled.stderr);
      assert.match(settled.stdout, /correction \S+ rejected: not-now/);

      // merge-report over three artifact folders (one run each, as a CI matrix uploads them) says the same.
      const artifacts = path.join(ws.root, '..', 'artifacts');
      for (const e of report.tickets)
        cpSync(path.join(report.batchDir, 'runs', e.runId!), path.join(artifacts, `run-${e.ticketId}`, e.runId!), { recursive: true });
      const mergedOut = path.join(ws.root, '..', 'merged');
      const m = runDistCli(['merge-report', ...readdirSync(artifacts).map((d) => path.join(artifacts, d)), '--out', mergedOut]);
      assert.equal(m.code, 1, m.stderr);
      const merged = readReport(mergedOut);
      assert.deepEqual(merged.tickets.map(comparable), report.tickets.map(comparable));
      assert.deepEqual(testcases(readFileSync(path.join(mergedOut, 'batch-junit.xml'), 'utf8')), cases);
    }
  });

  it("tickets on one commit with the project's whole suite as a gate measure it once: the other runs reuse that baseline, and say so", () => {
    const ws = copyFixtureInGit();
    try {
      const out = path.join(ws.root, '..', 'out-suite');
      const r = runDistCli([
        'batch',
        ...THREE,
        '--workspace',
        ws.root,
        '--parallel',
        '2',
        '--out',
        out,
        ...FAST,
        '--gates',
        'projectTests',
        '--all-project-tests',
      ]);
      assert.ok(r.code !== null && r.code <= 2, r.stderr);
      const report = readReport(out);
      const baselines = report.tickets.map((t) => {
        const events = readFileSync(path.join(report.batchDir, 'runs', t.runId!, 'events.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; reusedFrom?: { runId: string }; files?: string[] });
        return events.find((e) => e.type === 'projectTests.baseline')!;
      });
      const measured = baselines.filter((b) => !b.reusedFrom);
      assert.equal(
        measured.length,
        1,
        `one baseline for the batch, not one per ticket: ${JSON.stringify(baselines.map((b) => b.reusedFrom))}`,
      );
      const measuredBy = report.tickets[baselines.indexOf(measured[0]!)]!.runId;
      for (const b of baselines.filter((x) => x.reusedFrom)) assert.equal(b.reusedFrom!.runId, measuredBy);
      assert.ok(
        baselines.every((b) => JSON.stringify(b.files) === JSON.stringify(measured[0]!.files)),
        'every ticket asked for the whole suite',
      );
    } finally {
      ws.dispose();
    }
  });

  it('gives each ticket the same outcome, attempts, routes, stop and code as running it alone', () => {
    const { ws, out } = batchOfThree();
    const report = readReport(out);
    for (const ticket of THREE) {
      const alone = copyFixture();
      try {
        const r = runDistCli(['run', ticket, '--workspace', alone.root, '--json', ...FAST]);
        assert.doesNotMatch(r.stderr, STACK_LINE);
        const { state } = JSON.parse(r.stdout) as { state: RunState };
        const expected = verdictOf(batchEntry(ticket, state, { exitCode: r.code, workspace: null }));
        const inBatch = byId(report, state.ticketId);
        assert.deepEqual(verdictOf(inBatch), expected, ticket);
        // The passed ticket's change is the same bytes on its branch as in the lone run's workspace.
        if (inBatch.branch) {
          for (const file of git(ws.root, 'diff', '--name-only', 'HEAD', inBatch.branch).split('\n').filter(Boolean)) {
            assert.equal(git(ws.root, 'show', `${inBatch.branch}:${file}`), readFileSync(path.join(alone.root, file), 'utf8'), file);
          }
        }
      } finally {
        alone.dispose();
      }
    }
  });

  it('Ctrl-C mid-batch cancels every running ticket: each run records the cancel, none is left running, the rest never start', async () => {
    const ws = copyFixtureInGit();
    try {
      const out = path.join(ws.root, '..', 'out');
      const { b } = await twoRunning(ws.root, out);
      b.child.kill('SIGINT');
      const r = await b.done;
      assert.equal(r.code, 130, r.stderr);
      const report = readReport(out);
      assert.deepEqual(
        report.tickets.map((t) => [t.ticketId, t.outcome]),
        [
          ['BLOG-1', 'cancelled'],
          ['BLOG-3', 'cancelled'],
          ['BLOG-5', 'notStarted'],
        ],
      );
      for (const id of ['BLOG-1', 'BLOG-3']) {
        const e = byId(report, id);
        assert.equal(e.exitCode, 130);
        const log = readFileSync(path.join(e.workspace!, '.ticket-runner', 'runs', e.runId!, 'events.jsonl'), 'utf8')
          .trim()
          .split('\n');
        const last = JSON.parse(log.at(-1)!) as { type: string; outcome: string };
        assert.deepEqual([last.type, last.outcome], ['run.finished', 'cancelled']);
      }
      // No process of the batch outlives it: nothing runs in its trees.
      const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
      assert.ok(!ps.includes(report.batchDir), ps);
      // The cancelled trees stay, as worktrees git knows (resume runs there); the unstarted one has none.
      const worktrees = git(ws.root, 'worktree', 'list');
      assert.ok(worktrees.includes(byId(report, 'BLOG-1').workspace!) && worktrees.includes(byId(report, 'BLOG-3').workspace!));
      assert.ok(!existsSync(path.join(report.batchDir, 'trees', 'BLOG-5')));
      assert.match(readFileSync(path.join(out, 'batch-junit.xml'), 'utf8'), /errors="3"/);
    } finally {
      ws.dispose();
    }
  });

  it("a second Ctrl-C while the batch cancels kills every ticket's process at once: exit 130, nothing of the batch left running", async () => {
    const ws = copyFixtureInGit();
    try {
      const { b, pids } = await twoRunning(ws.root);
      b.child.kill('SIGINT');
      // Signals sent back to back may reach the process as one: the second goes once the first is heard.
      await until('the batch to start cancelling', () => /SIGINT: cancelling/.test(b.stderr()));
      b.child.kill('SIGINT');
      const t0 = Date.now();
      const r = await b.done;
      assert.equal(r.code, 130, r.stderr);
      assert.ok(Date.now() - t0 < 5_000, `exited ${Date.now() - t0} ms after the second Ctrl-C`);
      // SIGKILL lands at once, but a loaded machine may take a moment to finish the process off.
      await until("the tickets' processes to be gone", () => pids.every((pid) => !alive(pid)), 3_000);
    } finally {
      ws.dispose();
    }
  });

  it('a batch killed with SIGKILL leaves no ticket running: each notices its batch is gone and records a cancel', async () => {
    const ws = copyFixtureInGit();
    try {
      const { b, pids } = await twoRunning(ws.root);
      b.child.kill('SIGKILL');
      await b.done;
      await until("the tickets' processes to end", () => pids.every((pid) => !alive(pid)), 30_000);
      const batches = path.join(ws.root, '.ticket-runner', 'batch');
      const [batch] = readdirSync(batches);
      for (const id of ['BLOG-1', 'BLOG-3']) {
        const runs = path.join(batches, batch!, 'trees', id, '.ticket-runner', 'runs');
        const [runId] = readdirSync(runs);
        const last = JSON.parse(
          readFileSync(path.join(runs, runId!, 'events.jsonl'), 'utf8')
            .trim()
            .split('\n')
            .at(-1)!,
        ) as { type: string; outcome: string };
        assert.deepEqual([id, last.type, last.outcome], [id, 'run.finished', 'cancelled']);
      }
      assert.ok(!existsSync(path.join(batches, batch!, 'trees', 'BLOG-5')), 'the third ticket never started');
    } finally {
      ws.dispose();
    }
  });

  it('a slot runs its tickets one after another in one process; a slot process that dies loses only the ticket it was running, never as a pass', async () => {
    const ws = copyFixtureInGit();
    try {
      const out = path.join(ws.root, '..', 'out');
      const b = startDistCli(['batch', ...THREE, '--workspace', ws.root, '--parallel', '1', '--out', out, ...FAST]);
      await until('BLOG-1 to start', () => /\[BLOG-1\] run \S+: ticket/.test(b.stderr()));
      const [first, ...others] = childPids(b.child.pid!);
      assert.ok(first !== undefined && others.length === 0, 'one process for the one slot');
      process.kill(first, 'SIGKILL');
      const r = await b.done;
      const report = readReport(out);
      const b1 = byId(report, 'BLOG-1');
      assert.notEqual(b1.outcome, 'passed', r.stderr);
      assert.equal(b1.exitCode, null, 'its process died');
      assert.deepEqual(
        ['BLOG-3', 'BLOG-5'].map((id) => [id, byId(report, id).outcome]),
        [
          ['BLOG-3', 'needsOperator'],
          ['BLOG-5', 'passed'],
        ],
      );
      // The next two ran in one new process, one after the other, each in its own tree.
      const owners = ['BLOG-3', 'BLOG-5'].map((id) => {
        const runs = path.join(report.batchDir, 'runs', byId(report, id).runId!, 'events.jsonl');
        return (JSON.parse(readFileSync(runs, 'utf8').split('\n', 1)[0]!) as { owner: { pid: number } }).owner.pid;
      });
      assert.equal(owners[0], owners[1], "the slot's new process ran both");
      assert.notEqual(owners[0], first);
      assert.equal(r.code, 1, 'a ticket whose run never finished fails the batch');
    } finally {
      ws.dispose();
    }
  });

  it('outside git each ticket runs in a copy; the workspace is untouched', () => {
    const ws = copyFixture();
    try {
      const before = treeHash(ws.root);
      const r = runDistCli(['batch', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--json', ...FAST]);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout) as Report;
      assert.equal(report.mode, 'copy');
      const e = report.tickets[0]!;
      assert.deepEqual([e.outcome, e.branch], ['passed', null]);
      // With no branch to keep it on, the passed change stays in its copy.
      assert.match(readFileSync(path.join(e.workspace!, 'src', 'format', 'postSummary.ts'), 'utf8'), /summarizePage/);
      assert.doesNotMatch(readFileSync(path.join(ws.root, 'src', 'format', 'postSummary.ts'), 'utf8'), /summarizePage/);
      assert.equal(treeHash(ws.root), before);
    } finally {
      ws.dispose();
    }
  });

  it('bad input is one line and exit 3: no ticket matched, a dirty tree, an unknown flag, a bad --keep', () => {
    const ws = copyFixtureInGit();
    try {
      const cases: [string[], RegExp][] = [
        [['batch', '.tickets/NOPE-*.ticket.json'], /no ticket matched \.tickets\/NOPE-\*\.ticket\.json/],
        [['batch', '.tickets', '--frobnicate'], /frobnicate/],
        [['batch', '.tickets', '--keep', 'some'], /--keep must be passed, all or none/],
        [['batch', '.tickets', '--parallel', '0'], /--parallel must be a positive integer/],
        [['run', '.tickets/BLOG-5.ticket.json', '--parallel', '2'], /--parallel is an option of batch/],
        [['merge-report', path.join(ws.root, 'src')], /no run log \(events\.jsonl\) under/],
      ];
      for (const [args, said] of cases) {
        const r = runDistCli([...args, '--workspace', ws.root, '--model', 'scripted']);
        assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, said);
      }
      writeFileSync(path.join(ws.root, 'src', 'extra.ts'), 'export const x = 1;\n');
      const dirty = runDistCli(['batch', '.tickets', '--workspace', ws.root, '--model', 'scripted']);
      assert.equal(dirty.code, 3);
      assert.match(dirty.stderr, /^ticket-runner: the workspace has 1 uncommitted change\(s\) \(src\/extra\.ts\): commit or stash them/);
      assert.ok(
        !existsSync(path.join(ws.root, '.ticket-runner', 'batch')) || !readdirSync(path.join(ws.root, '.ticket-runner', 'batch')).length,
      );
    } finally {
      ws.dispose();
    }
  });

  it('tickets lists what a batch would run, as the JSON list a CI matrix takes', () => {
    const ws = copyFixtureInGit();
    try {
      mkdirSync(path.join(ws.root, 'more'));
      const r = runDistCli(['tickets', '.tickets/BLOG-1?.ticket.json', '.tickets/BLOG-9.ticket.json', '--workspace', ws.root]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), [
        '.tickets/BLOG-9.ticket.json',
        '.tickets/BLOG-10.ticket.json',
        '.tickets/BLOG-11.ticket.json',
        '.tickets/BLOG-12.ticket.json',
        '.tickets/BLOG-13.ticket.json',
        '.tickets/BLOG-14.ticket.json',
        '.tickets/BLOG-15.ticket.json',
      ]);
    } finally {
      ws.dispose();
    }
  });
});
