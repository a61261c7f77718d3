import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import type { TestRunRequest } from '../../../src/core/ports/checks';
import type { KeptBaselinesPort, KeptMeasure } from '../../../src/core/ports/keptBaselines';
import type { TestRunResult } from '../../../src/core/schema/checks';
import { describeEvent } from '../../../src/core/run/views/eventLines';
import { formatRunReport } from '../../../src/core/run/views/report';
import { fakeDeps, scripted, ticketPathOf, type FakeRig } from '../../fakes/fakeDeps';
import { eventsOf, ofType } from './loopRig';

/**
 * The baselines kept between runs, through startRun on the fakes: a second run on a workspace
 * whose fingerprint is the first's takes the project-wide type-check and the project's tests
 * from it, and says so; any other fingerprint, a measurement that was disturbed or changed under
 * the run, or an entry that does not parse, is measured afresh. The fingerprint itself and the
 * store are the node side's (test/unit/node/baselineFingerprint.test.ts, keptBaselineStore.test.ts).
 */

const isTicketRun = (r: TestRunRequest) => r.files.some((f) => f.startsWith('test/ticket/'));

/** The store, in memory, with a fingerprint the test sets; it records what was asked of it. */
function memoryKept(print: { now: string | undefined }) {
  const entries = new Map<string, KeptMeasure>();
  const seen = { claims: 0, releases: 0, kept: 0 };
  const port: KeptBaselinesPort = {
    fingerprint: () => Promise.resolve(print.now),
    recall: (key) => Promise.resolve(entries.has(key) ? (JSON.parse(JSON.stringify(entries.get(key))) as KeptMeasure) : undefined),
    keep: (key, kept) => {
      seen.kept++;
      entries.set(key, JSON.parse(JSON.stringify(kept)) as KeptMeasure);
      return Promise.resolve();
    },
    claim: () => {
      seen.claims++;
      return Promise.resolve(() => Promise.resolve(void seen.releases++));
    },
  };
  return { port, entries, seen };
}

/** A fresh fixture world wired to `port`, counting the baseline's measurements. */
function rigWith(port: KeptBaselinesPort, o: { effects?: TestRunResult['sideEffects']; status?: TestRunResult['status'] } = {}) {
  // The fakes answer what real runs answered: the projectTests gate's run of the whole suite on BLOG-1's change is not one.
  const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'), { gates: { enabled: ['typecheck'] } });
  rig.deps.keptBaselines = port;
  const measured = { tests: 0, typechecks: 0 };
  const tests = rig.deps.tests;
  const run = tests.run.bind(tests);
  // The project's tests run before the ticket's first: that run is the baseline's.
  let ticketRan = false;
  tests.run = async (request, signal) => {
    ticketRan ||= isTicketRun(request);
    if (ticketRan) return run(request, signal);
    measured.tests++;
    const r = await run(request, signal);
    return { ...r, ...(o.effects ? { sideEffects: o.effects } : {}), ...(o.status ? { status: o.status } : {}) };
  };
  const typecheck = rig.deps.gates!.typecheck!;
  const check = typecheck.check.bind(typecheck);
  // The gate's own check at the end is not the baseline's: with no recording of the changed
  // code's check in the fakes, it answers as the project's check before the run does.
  const before = check(new AbortController().signal, ['src/handlers/posts.ts']);
  typecheck.check = (signal, scope) => {
    if (ticketRan) return before;
    measured.typechecks++;
    return check(signal, scope);
  };
  return { rig, measured };
}

async function run(rig: FakeRig) {
  const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
  const events = await eventsOf(rig, r.runId);
  return { ...r, events, findings: ofType(events, 'baseline.recorded')[0]!, tests: ofType(events, 'projectTests.baseline')[0]! };
}

describe('pure: baselines kept between runs', () => {
  it('a second run on the same fingerprint measures nothing again: both parts come from the first run, and the log says which', async () => {
    const kept = memoryKept({ now: 'a'.repeat(64) });
    const one = rigWith(kept.port);
    const first = await run(one.rig);
    assert.equal(first.state.status, 'passed', JSON.stringify(first.state.finished));
    assert.deepEqual(one.measured, { tests: 1, typechecks: 1 });
    assert.equal(first.findings.projectReusedFrom, undefined);
    assert.equal(first.tests.reusedFrom, undefined);
    assert.equal(kept.entries.size, 2, 'the type-check and the tests are kept');

    const two = rigWith(kept.port);
    const second = await run(two.rig);
    assert.equal(second.state.status, 'passed', JSON.stringify(second.state.finished));
    assert.deepEqual(two.measured, { tests: 0, typechecks: 0 }, 'neither was measured again');
    assert.equal(second.findings.projectReusedFrom?.runId, first.runId);
    assert.equal(second.tests.reusedFrom?.runId, first.runId);
    assert.deepEqual(second.tests.failing, first.tests.failing);
    assert.deepEqual(second.tests.passing, first.tests.passing);
    assert.deepEqual(second.findings.project, first.findings.project);
    assert.equal(kept.seen.claims, kept.seen.releases, 'every claim was let go');
  });

  it('a reused type-check asks the checker to load the project once the baseline is recorded, and a measured one does not', async () => {
    const kept = memoryKept({ now: 'a'.repeat(64) });
    const asked = (rig: FakeRig) => {
      const warms: { scope: readonly string[] | undefined; recorded: boolean }[] = [];
      rig.deps.gates!.typecheck!.warm = (_signal, scope) =>
        void warms.push({ scope, recorded: [...rig.store.lines.values()].flat().some((l) => l.includes('"baseline.recorded"')) });
      return warms;
    };
    const one = rigWith(kept.port);
    const firstWarms = asked(one.rig);
    await run(one.rig);
    assert.deepEqual(firstWarms, [], 'the baseline loaded it already');
    const two = rigWith(kept.port);
    const secondWarms = asked(two.rig);
    const second = await run(two.rig);
    assert.equal(second.state.status, 'passed', JSON.stringify(second.state.finished));
    assert.deepEqual(secondWarms, [{ scope: ['src/handlers/posts.ts'], recorded: true }]);
  });

  it("the scope's first look does not wait for the fingerprint: only the kept parts do", async () => {
    const kept = memoryKept({ now: 'a'.repeat(64) });
    let printed!: () => void;
    const gate = new Promise<void>((resolve) => (printed = resolve));
    const port: KeptBaselinesPort = { ...kept.port, fingerprint: () => gate.then(() => 'a'.repeat(64)) };
    const { rig } = rigWith(port);
    const check = rig.deps.diagnostics!.check.bind(rig.deps.diagnostics);
    let looked = false;
    rig.deps.diagnostics!.check = (files, signal) => {
      looked = true;
      return check(files, signal);
    };
    const running = run(rig);
    for (let i = 0; i < 50 && !looked; i++) await new Promise((r) => setImmediate(r));
    assert.equal(looked, true, 'the language service looked before the fingerprint was taken');
    printed();
    const r = await running;
    assert.equal(r.state.status, 'passed', JSON.stringify(r.state.finished));
    assert.equal(kept.seen.claims, kept.seen.releases, 'every claim was let go');
  });

  it('a fingerprint that differs by one character measures afresh', async () => {
    const print = { now: 'a'.repeat(64) as string | undefined };
    const kept = memoryKept(print);
    await run(rigWith(kept.port).rig);
    print.now = `${'a'.repeat(63)}b`;
    const two = rigWith(kept.port);
    const second = await run(two.rig);
    assert.deepEqual(two.measured, { tests: 1, typechecks: 1 });
    assert.equal(second.tests.reusedFrom, undefined);
    assert.equal(second.findings.projectReusedFrom, undefined);
  });

  it('no fingerprint (the workspace could not be read whole): measured, and nothing is kept', async () => {
    const kept = memoryKept({ now: undefined });
    const one = rigWith(kept.port);
    await run(one.rig);
    assert.deepEqual(one.measured, { tests: 1, typechecks: 1 });
    assert.equal(kept.entries.size, 0);
    assert.equal(kept.seen.claims, 0);
  });

  it('a workspace that changed while the baselines were measured (a save beside the run): nothing is kept', async () => {
    const print = { now: 'a'.repeat(64) as string | undefined };
    const kept = memoryKept(print);
    const one = rigWith(kept.port);
    const tests = one.rig.deps.tests;
    const runTests = tests.run.bind(tests);
    tests.run = (request, signal) => {
      if (!isTicketRun(request)) print.now = 'c'.repeat(64);
      return runTests(request, signal);
    };
    await run(one.rig);
    assert.equal(kept.entries.size, 0);
    assert.equal(kept.seen.claims, kept.seen.releases);
  });

  it('project tests that wrote to the workspace, or that timed out, are not kept', async () => {
    for (const o of [{ effects: [{ path: 'src/tmp.ts', change: 'created' as const, restored: true }] }, { status: 'timeout' as const }]) {
      const kept = memoryKept({ now: 'a'.repeat(64) });
      await run(rigWith(kept.port, o).rig);
      const two = rigWith(kept.port);
      await run(two.rig);
      assert.equal(two.measured.tests, 1, `measured again after ${JSON.stringify(o)}`);
    }
  });

  it('a kept entry that does not parse as a measurement is measured afresh, never believed', async () => {
    const kept = memoryKept({ now: 'a'.repeat(64) });
    await run(rigWith(kept.port).rig);
    for (const [key, entry] of kept.entries) kept.entries.set(key, { ...entry, value: { cases: 'all passed' } });
    const two = rigWith(kept.port);
    const second = await run(two.rig);
    assert.deepEqual(two.measured, { tests: 1, typechecks: 1 });
    assert.equal(second.tests.reusedFrom, undefined);
  });

  it('a cancel during the baselines lets the claim go and keeps nothing', async () => {
    const kept = memoryKept({ now: 'a'.repeat(64) });
    const one = rigWith(kept.port);
    const controller = new AbortController();
    const tests = one.rig.deps.tests;
    const runTests = tests.run.bind(tests);
    tests.run = (request, signal) => {
      if (!isTicketRun(request)) controller.abort();
      return runTests(request, signal);
    };
    const r = await startRun(one.rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: controller.signal });
    assert.equal(r.state.status, 'cancelled');
    assert.equal(kept.entries.size, 0);
    assert.equal(kept.seen.claims, 1);
    assert.equal(kept.seen.releases, 1);
  });

  it('the views say a baseline was reused: the progress line and the report', async () => {
    const kept = memoryKept({ now: 'a'.repeat(64) });
    await run(rigWith(kept.port).rig);
    const second = await run(rigWith(kept.port).rig);
    assert.match(describeEvent(second.tests)!.text, /as an earlier run measured it on this same code/);
    assert.match(describeEvent(second.findings)!.text, /as an earlier run measured it on this same code/);
    assert.match(
      formatRunReport(second.state),
      /Before the run, the type-check of the whole project and the project's tests: as an earlier run measured it/,
    );
  });
});
