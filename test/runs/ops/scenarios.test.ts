import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import type { RunResult } from '../../../src/core';
import type { RunEvent } from '../../../src/core/schema/events';
import { callsOf, resolveRun, rollback, runTicket } from '../../support/scenario';
import { copyFixture, treeHash } from '../../support/tempWorkspace';
import { sourceFiles } from '../../support/opsFixture';

/**
 * The two op tickets end to end through startRun, with the real checks, the real ops
 * adapter and the scripted model: BLOG-10's op applies and the Coder finishes the change;
 * BLOG-11's rename reaches outside the scope and becomes an op correction request.
 */

const types = (events: readonly RunEvent[]) => events.map((e) => e.type);
const run = (root: string, id: string, patch?: (deps: PipelineDeps) => void) => runTicket(root, id, { attempts: 2, patch });
const accept = (root: string, r: RunResult) => resolveRun(root, r, 'accept');

async function events(r: RunResult): Promise<RunEvent[]> {
  return readFileSync(r.logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RunEvent);
}

describe('ops scenarios: typed ops before any model runs', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());
  const read = (rel: string) => readFileSync(path.join(ws.root, rel), 'utf8');

  it('BLOG-10: the op adds Post.readingMinutes, the errors it leaves in scope go to the Coder, who passes on attempt 1', async () => {
    const before = treeHash(ws.root);
    const r = await run(ws.root, 'BLOG-10');
    const { state } = r;
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
    const log = await events(r);
    const order = types(log).filter((t) =>
      ['tests.materialized', 'files.written', 'op.applied', 'ops.checked', 'coder.attempted'].includes(t),
    );
    assert.deepEqual(order, [
      'files.written',
      'tests.materialized',
      'files.written',
      'op.applied',
      'ops.checked',
      'coder.attempted',
      'files.written',
    ]);

    const opWrite = log.find((e) => e.type === 'files.written' && e.by === 'op');
    assert.ok(opWrite?.type === 'files.written');
    assert.equal(opWrite.attempt, 0);
    assert.deepEqual(
      opWrite.files.map((f) => f.path),
      ['src/types.ts'],
    );
    assert.notEqual(opWrite.files[0]!.before, opWrite.files[0]!.after);
    assert.deepEqual(
      state.ops.map((o) => [o.index, o.op.op, o.ok]),
      [[0, 'setInterfaceField', true]],
    );

    // The op made the seed data and the project's own fixture incorrect: recorded, in scope, not a failure.
    const introduced = state.opsCheck?.introduced.map((d) => [d.file, d.code]) ?? [];
    assert.deepEqual(introduced, [
      ['src/data/seed.ts', 'TS2345'],
      ['test/postSummary.test.ts', 'TS2741'],
    ]);
    assert.match(read('src/types.ts'), /createdAt: string;\n {2}readingMinutes: number;\n\}/);
    assert.equal(state.attempts[0]?.diagnostics?.ok, true);
    assert.equal(state.attempts[0]?.tests?.status, 'passed');

    // Run again over the finished change: the op is already in place and writes nothing.
    const typesAfter = read('src/types.ts');
    const again = await events(await run(ws.root, 'BLOG-10'));
    assert.deepEqual(
      again.flatMap((e) => (e.type === 'op.applied' ? [e.files.map((f) => f.path)] : [])),
      [[]],
    );
    assert.equal(
      again.some((e) => e.type === 'files.written' && e.by === 'op'),
      false,
    );
    assert.equal(read('src/types.ts'), typesAfter);

    // A rollback of the first run undoes the op with everything else.
    await rollback(ws.root, r.runId);
    assert.equal(treeHash(ws.root), before);
  });

  it('BLOG-10 with the test fixture out of scope: the error the op brings there stops the run before the Coder, with a scope addition', async () => {
    const ticketPath = path.join(ws.root, '.tickets/BLOG-10.ticket.json');
    const ticket = JSON.parse(readFileSync(ticketPath, 'utf8')) as { scope: { write: string[] } };
    ticket.scope.write = ticket.scope.write.filter((p) => p !== 'test/postSummary.test.ts');
    writeFileSync(ticketPath, JSON.stringify(ticket, null, 2));
    const { state } = await run(ws.root, 'BLOG-10');
    assert.equal(state.status, 'needsOperator');
    assert.equal(callsOf(state, 'coder'), 0);
    const req = state.corrections[0]!.request;
    assert.deepEqual(
      [req.target, req.fact.kind, req.fact.file, req.fact.code],
      ['op', 'outsideScopeDiagnostic', 'test/postSummary.test.ts', 'TS2741'],
    );
    assert.deepEqual(req.proposal, { kind: 'scopeAddition', paths: ['test/postSummary.test.ts'] });
    assert.deepEqual(state.finished?.reason, { kind: 'correctionRequested', requestId: req.id, route: 'manifest' });
  });

  it("BLOG-11: the rename reaches outside the scope, so the op fails before any model runs; accepted, the resumed run renames and passes, and the coverage gate names the barrel's re-export the rename changed as wiring no test runs, not counted", async () => {
    // Every file but the declaring one that names summarize: the rename must touch each (the fixture may grow).
    const referencing = sourceFiles(ws.root).filter((f) => f !== 'src/format/postSummary.ts' && /\bsummarize\b/.test(read(f)));
    assert.ok(referencing.includes('src/index.ts') && referencing.includes('test/postSummary.test.ts'));
    const indexBefore = read('src/index.ts');
    const gates = { gates: { enabled: ['coverage' as const] } };
    const first = await runTicket(ws.root, 'BLOG-11', { attempts: 2, ...gates });
    const s1 = first.state;
    assert.equal(s1.status, 'needsOperator');
    assert.equal(s1.usage.calls, 0);
    assert.equal(s1.attempts.length, 0);
    assert.deepEqual(
      s1.ops.map((o) => [o.index, o.ok]),
      [[0, false]],
    );
    assert.equal(
      s1.ops[0]!.reason,
      `renaming summarize to formatPostLine must also change ${referencing.join(', ')}, which scope.write does not list`,
    );
    assert.equal(s1.ops[0]!.suggestion, `add ${referencing.join(', ')} to scope.write`);
    const req = s1.corrections[0]!.request;
    assert.deepEqual(
      [req.target, req.fact.kind, req.fact.file, req.fact.line],
      [
        'op',
        'opFailed',
        referencing[0],
        read(referencing[0]!)
          .split('\n')
          .findIndex((l) => /\bsummarize\b/.test(l)) + 1,
      ],
    );
    assert.match(req.fact.detail, /^ops\[0\] renameSymbol failed: renaming summarize to formatPostLine must also change/);
    assert.deepEqual(req.proposal, { kind: 'scopeAddition', paths: referencing });
    assert.deepEqual(s1.finished?.reason, { kind: 'correctionRequested', requestId: req.id, route: 'manifest' });
    assert.deepEqual(types(await events(first)).slice(-3), ['op.failed', 'correction.requested', 'run.finished']);
    assert.equal(read('src/index.ts'), indexBefore);

    const r = await resolveRun(ws.root, first, 'accept', undefined, gates);
    const { state } = r;
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(state.corrections[0]?.status, 'accepted');
    const coverage = state.gates.find((g) => g.gate === 'coverage')!;
    assert.equal(coverage.status, 'passed', coverage.detail);
    assert.ok(coverage.evidence?.kind === 'coverage' && coverage.evidence.unloaded.includes('src/index.ts'), coverage.detail);
    assert.match(coverage.detail, /not loaded by the ticket's tests, not counted \(types or imports only\): src\/index\.ts/);
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [1, 0]);
    assert.deepEqual(
      state.ops.map((o) => [o.index, o.ok]),
      [
        [0, false],
        [0, true],
      ],
    );
    const applied = (await events(r)).filter((e) => e.type === 'files.written' && e.by === 'op');
    assert.deepEqual(
      applied.flatMap((e) => (e.type === 'files.written' ? e.files.map((f) => f.path) : [])).sort(),
      ['src/format/postSummary.ts', ...referencing].sort(),
    );
    // No call, import or export of the old name is left (test names may still say it in prose).
    for (const f of referencing) assert.doesNotMatch(read(f), /\bsummarize\s*[(,}]|[{,]\s*summarize\b/, f);
    assert.match(read('src/index.ts'), /export \{ formatPostLine \} from '\.\/format\/postSummary';/);
    assert.match(read('test/postSummary.test.ts'), /assert\.equal\(formatPostLine\(post\), 'Typed tests \(typescript, testing\)'\);/);
    assert.deepEqual(state.opsCheck?.introduced, []);
    assert.equal(state.attempts[0]?.tests?.status, 'passed');
  });

  /** Rewrites BLOG-10's ticket in the copy. */
  function editTicket(change: (ticket: { scope: { write: string[] }; ops: Record<string, unknown>[] }) => void): void {
    const file = path.join(ws.root, '.tickets/BLOG-10.ticket.json');
    const ticket = JSON.parse(readFileSync(file, 'utf8')) as { scope: { write: string[] }; ops: Record<string, unknown>[] };
    change(ticket);
    writeFileSync(file, JSON.stringify(ticket, null, 2));
  }

  it('an op that fails after one applied: a ticket edit with the near name; the resumed run does not apply the first op again', async () => {
    editTicket((t) =>
      t.ops.push({ op: 'setInterfaceField', file: 'src/types.ts', interface: 'Pots', field: 'wordCount', type: 'number', optional: true }),
    );
    const first = await run(ws.root, 'BLOG-10');
    assert.deepEqual(
      first.state.ops.map((o) => [o.index, o.ok]),
      [
        [0, true],
        [1, false],
      ],
    );
    const req = first.state.corrections[0]!.request;
    assert.deepEqual([req.target, req.fact.kind, req.proposal.kind], ['op', 'opFailed', 'ticketEdit']);
    assert.equal(first.state.finished?.reason.kind === 'correctionRequested' && first.state.finished.reason.route, 'ticket');
    assert.match(req.proposal.kind === 'ticketEdit' ? req.proposal.summary : '', /set the field on Post, not Pots/);

    const { state } = await accept(ws.root, first);
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.deepEqual(
      state.ops.map((o) => [o.index, o.ok]),
      [
        [0, true],
        [1, false],
        [1, true],
      ],
    );
    assert.match(read('src/types.ts'), /readingMinutes: number;\n {2}wordCount\?: number;\n\}/);
    assert.equal(read('src/types.ts').match(/readingMinutes/g)?.length, 1);
  });

  it('without an ops adapter, or with an op on a file outside the scope, the first op fails as a correction request', async () => {
    const bare = await run(ws.root, 'BLOG-10', (deps) => {
      deps.ops = undefined;
    });
    assert.equal(bare.state.ops[0]?.reason, 'this host has no ops adapter');
    assert.equal(bare.state.corrections[0]?.request.proposal.kind, 'none');
    editTicket((t) => {
      t.scope.write = t.scope.write.filter((p) => p !== 'src/types.ts');
    });
    const outside = await run(ws.root, 'BLOG-10');
    assert.equal(outside.state.ops[0]?.reason, 'src/types.ts is not in scope.write, and an op changes only files in scope');
    assert.deepEqual(outside.state.corrections[0]?.request.proposal, { kind: 'scopeAddition', paths: ['src/types.ts'] });
    assert.equal(callsOf(outside.state, 'coder') + callsOf(bare.state, 'coder'), 0);
  });
});
