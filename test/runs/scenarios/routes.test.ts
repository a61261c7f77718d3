import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunResult } from '../../../src/core';
import { runCli } from '../../../src/cli/main';
import { callsOf, logEvents, resolveRun, rollback, runTicket } from '../../support/scenario';
import { copyFixture, copyWorkspace, treeHash } from '../../support/tempWorkspace';

/**
 * Each fixture ticket, end to end, with the real checks (Tree-sitter, the TypeScript
 * language service, node:test through tsx) and the scripted model. The assertions are
 * about the route, the guard's verdict, who was called how often, and why the run stopped.
 * A run that several tests read happens once, in a before() hook; a run the operator decides
 * two ways is copied once it waits, and each copy is decided in its own test.
 */

const run = (root: string, id: string) => runTicket(root, id);
const resolve = (root: string, r: RunResult, decision: 'accept' | 'reject', reason?: string) => resolveRun(root, r, decision, reason);

describe('scenarios: every failure goes to the stage that owns its fix', function () {
  this.timeout(120_000);
  /** Copies made in before() hooks, disposed after the suite. */
  const shared: { dispose: () => void }[] = [];
  const sharedCopy = () => {
    const ws = copyFixture();
    shared.push(ws);
    return ws.root;
  };
  /** Another copy of a workspace as it stands, with its run store: the same waiting run, decided apart. */
  const copyOf = (root: string): string => {
    const ws = copyWorkspace(root);
    shared.push(ws);
    return ws.root;
  };
  after(() => shared.forEach((ws) => ws.dispose()));

  describe('BLOG-1, one run read by each test', () => {
    let root: string;
    let blog1: RunResult;
    before(async () => {
      root = sharedCopy();
      blog1 = await run(root, 'BLOG-1');
    });

    it('BLOG-1 pagination: code → Coder → pass, with the diagnosis and brief in the log', () => {
      const { state } = blog1;
      assert.equal(state.status, 'passed');
      assert.deepEqual(state.finished?.reason, { kind: 'testsPassed' });
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
      const [a1, a2] = state.attempts;
      assert.equal(a1?.tests?.status, 'failed');
      assert.equal(a1?.tests?.cases.find((c) => c.status === 'failed')?.expected, '400');
      assert.equal(a1?.diagnosis?.kind, 'code');
      assert.deepEqual([a1?.route?.route, a1?.route?.verdict], ['code', 'notNeeded']);
      assert.match(a2?.brief ?? '', /raw query value/);
      assert.equal(a2?.tests?.status, 'passed');
    });

    it('BLOG-1: `ticket-runner show` tells the story from the log alone', async () => {
      const out: string[] = [];
      const code = await runCli(
        ['show', blog1.runId, '--workspace', root],
        { out: (s) => out.push(s), err: () => undefined },
        new AbortController().signal,
      );
      assert.equal(code, 0);
      const report = out.join('\n');
      assert.match(report, /Model: SCRIPTED model/);
      assert.match(report, /Attempt 1: failed[\s\S]*FAIL .*rejects perPage above 100: expected 400, received 200/);
      assert.match(report, /Debugger: code is wrong: The handler's guard reads perPage after parsePaginationParams has clamped it/);
      assert.match(report, /route: code/);
      assert.match(report, /Attempt 2: passed\n\s+the Debugger's brief: parsePaginationParams clamps perPage/);
      assert.match(report, /Outcome: passed: tests passed/);
    });
  });

  describe('BLOG-2, one run that waits for the operator, decided on a copy by each test', () => {
    let waiting: string;
    let first: RunResult;
    before(async () => {
      waiting = sharedCopy();
      first = await run(waiting, 'BLOG-2');
    });

    it('BLOG-2 type migration: "test is wrong", backed by the TypeScript error in the test file; accepted, re-rendered, passes', async () => {
      const s1 = first.state;
      assert.equal(s1.status, 'needsOperator');
      assert.deepEqual([callsOf(s1, 'coder'), callsOf(s1, 'debugger')], [1, 1]);
      assert.deepEqual([s1.attempts[0]?.route?.route, s1.attempts[0]?.route?.verdict], ['test', 'confirmed']);
      const req = s1.corrections[0]!.request;
      assert.deepEqual(
        [req.target, req.fact.kind, req.fact.code, req.fact.file],
        ['testPlan', 'testTypeError', 'TS2345', 'test/ticket/BLOG-2.test.ts'],
      );
      assert.equal(req.proposal.kind, 'testPlan');
      assert.equal(s1.finished?.reason.kind, 'correctionRequested');

      const root = copyOf(waiting);
      const { state } = await resolve(root, first, 'accept');
      assert.equal(state.status, 'passed');
      assert.equal(state.corrections[0]?.status, 'accepted');
      assert.match(readFileSync(path.join(root, 'test/ticket/BLOG-2.test.ts'), 'utf8'), /tag\.slug === 'node'/);
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
    });

    it('BLOG-2 rejected: the run ends with the request on record', async () => {
      const root = copyOf(waiting);
      const { state } = await resolve(root, first, 'reject', 'the old shape is still wanted');
      assert.equal(state.status, 'failed');
      assert.deepEqual(state.finished?.reason, {
        kind: 'correctionRejected',
        requestId: first.state.corrections[0]!.request.id,
        reason: 'the old shape is still wanted',
      });
      assert.equal(state.corrections[0]?.status, 'rejected');
      await assert.rejects(resolve(root, first, 'accept'), /has no pending correction request/);
    });

    it('an Accept of a request the operator was shown decides that request only: a stale one is refused and changes nothing', async () => {
      const root = copyOf(waiting);
      const shown = first.state.corrections[0]!.request.id;
      const ticket = () => readFileSync(path.join(root, '.tickets/BLOG-2.ticket.json'), 'utf8');
      const before = ticket();
      // Another request pending than the one on screen: refused, the ticket and the log untouched.
      await assert.rejects(
        resolveRun(root, first, 'accept', undefined, { requestId: 'req-seen-earlier' }),
        /the correction request req-seen-earlier of run .* was already decided; nothing to accept: the run now waits on request /,
      );
      assert.equal(ticket(), before);
      const { state } = await resolveRun(root, first, 'accept', undefined, { requestId: shown });
      assert.equal(state.corrections[0]?.status, 'accepted');
      // The second Accept of the same modal: already decided, nothing written twice.
      await assert.rejects(resolveRun(root, first, 'accept', undefined, { requestId: shown }), /was already decided; nothing to accept$/);
      assert.equal(logEvents(root, first.runId).filter((e) => e.type === 'correction.accepted').length, 1);
    });
  });

  describe('BLOG-4, one run accepted, then rolled back', () => {
    let root: string;
    let untouched: string;
    let first: RunResult;
    let accepted: RunResult;
    before(async () => {
      root = sharedCopy();
      untouched = treeHash(root);
      first = await run(root, 'BLOG-4');
      accepted = await resolve(root, first, 'accept');
    });

    it('BLOG-4 out-of-scope caller: "manifest is wrong" with a scope addition; accepted, passes', () => {
      const a1 = first.state.attempts[0]!;
      assert.deepEqual([a1.route?.route, a1.route?.verdict, a1.route?.fact?.kind], ['manifest', 'confirmed', 'outsideScopeDiagnostic']);
      const proposal = first.state.corrections[0]!.request.proposal;
      assert.deepEqual(proposal, { kind: 'scopeAddition', paths: ['src/handlers/posts.ts', 'src/index.ts'] });
      const { state } = accepted;
      assert.equal(state.status, 'passed');
      assert.deepEqual(
        state.manifest?.scope.write.map((f) => f.path),
        ['src/store/postStore.ts', 'src/handlers/posts.ts', 'src/index.ts'],
      );
    });

    it('a rollback restores every byte of the workspace', async () => {
      // A copy of the accepted run's workspace, so the rollback is this test's alone.
      const mine = copyOf(root);
      assert.notEqual(treeHash(mine), untouched, 'the run changed the workspace');
      const { state } = await rollback(mine, first.runId);
      assert.equal(state.rolledBack, true);
      assert.equal(treeHash(mine), untouched);
    });
  });

  // BLOG-3's ticket route runs through the CLI, once, in test/runs/cli/cli.test.ts.
  describe('one run each', () => {
    let ws: ReturnType<typeof copyFixture>;
    beforeEach(() => {
      ws = copyFixture();
    });
    afterEach(() => ws.dispose());

    it('BLOG-5 missing import: passes on attempt 1 with zero Debugger calls, fixed by a code fix', async () => {
      const { state } = await run(ws.root, 'BLOG-5');
      assert.equal(state.status, 'passed');
      assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
      const fix = state.attempts[0]?.autofix?.applied[0];
      assert.equal(fix?.code, 'TS2304');
      assert.match(
        readFileSync(path.join(ws.root, 'src/format/postSummary.ts'), 'utf8'),
        /^import \{ getPosts \} from '\.\.\/store\/postStore';/m,
      );
    });

    it('a write outside the scope, to a test, or out of the workspace is refused and recorded', async () => {
      const script = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.script.json'), 'utf8')) as {
        coder: { files: Record<string, unknown> }[];
      };
      script.coder[0]!.files = {
        ...script.coder[0]!.files,
        'src/types.ts': 'export {};\n',
        'test/ticket/BLOG-1.test.ts': 'test rigged\n',
        '../escape.ts': 'x\n',
      };
      writeFileSync(path.join(ws.root, '.tickets/BLOG-1.script.json'), JSON.stringify(script));
      const { state } = await run(ws.root, 'BLOG-1');
      assert.deepEqual(
        state.attempts[0]?.refused.map((r) => [r.path, r.reason]),
        [
          ['src/types.ts', 'outOfScope'],
          ['test/ticket/BLOG-1.test.ts', 'testFile'],
          ['../escape.ts', 'escapesWorkspace'],
        ],
      );
      assert.doesNotMatch(readFileSync(path.join(ws.root, 'src/types.ts'), 'utf8'), /^export \{\};$/);
      assert.equal(state.status, 'passed');
    });
  });
});
