import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../../src/core/run/logCodec';
import { reduceRun } from '../../../src/core/run/reducer';
import { BEFORE_THE_RUN, runStage, withinAStep } from '../../../src/core/run/views/stage';
import type { RunEvent } from '../../../src/core/schema/events';

/**
 * The live step, over the logs of real runs of the sample (the CLI with the scripted model):
 * what the run view and the editor's notification say the run is doing after each event.
 */
describe('runStage', () => {
  const log = (name: string): RunEvent[] =>
    decodeLog(readFileSync(path.join(__dirname, 'fixtures', 'stage', `${name}.events.jsonl`), 'utf8'), name).events;
  const webviewLog = (name: string): RunEvent[] =>
    decodeLog(readFileSync(path.join(__dirname, '..', '..', 'webview', 'fixtures', name, 'events.jsonl'), 'utf8'), name).events;
  const labelAfter = (events: readonly RunEvent[], i: number) =>
    runStage(reduceRun(events[0]!.runId, events.slice(0, i + 1)), events.slice(0, i + 1))?.label ?? null;
  /** Each event, by its type (and gate), with the step shown after it. */
  const walk = (events: readonly RunEvent[]) =>
    events.map((e, i) => [e.type === 'gate.ran' ? `gate.ran ${e.gate}` : e.type, labelAfter(events, i)]);
  /** Events renumbered in the order given, as a run that wrote them so would have. */
  const renumbered = (events: readonly RunEvent[]): RunEvent[] => events.map((e, seq) => ({ ...e, seq }));

  it('names each step of a passing run while it runs, the checks before the run, each attempt, each gate, in order', () => {
    const coder = (n: number) => `Attempt ${n}: the Coder is writing`;
    const checks = (n: number) => `Attempt ${n}: checking the change (syntax, types, lint)`;
    assert.deepEqual(walk(log('BLOG-1-passes')), [
      ['run.started', 'Starting the run'],
      // The longest wait of a run: the project's type errors and its own tests, before the first write.
      ['manifest.built', BEFORE_THE_RUN],
      ['uncommitted.detected', BEFORE_THE_RUN],
      ['baseline.recorded', BEFORE_THE_RUN],
      ['projectTests.baseline', 'Rendering the tests'],
      ['file.baselined', 'Rendering the tests'],
      ['files.written', 'Rendering the tests'],
      ['tests.materialized', coder(1)],
      ['model.called', coder(1)],
      ['coder.attempted', checks(1)],
      ['file.baselined', checks(1)],
      ['files.written', checks(1)],
      ['check.parsed', checks(1)],
      ['check.diagnosed', checks(1)],
      ['check.linted', "Attempt 1: running the ticket's tests"],
      ['tests.ran', 'Attempt 1: the Debugger is diagnosing'],
      ['model.called', 'Attempt 1: the Debugger is diagnosing'],
      ['debugger.diagnosed', 'Attempt 1: choosing who fixes it'],
      ['router.routed', coder(2)],
      ['rung.fired', coder(2)],
      ['model.called', coder(2)],
      ['coder.attempted', checks(2)],
      ['files.written', checks(2)],
      ['check.parsed', checks(2)],
      ['check.diagnosed', checks(2)],
      ['check.linted', "Attempt 2: running the ticket's tests"],
      ['tests.ran', "Attempt 2: running the project's own tests that use the change"],
      ['projectTests.ran', 'Gates: Type check of the whole project'],
      ['gate.ran typecheck', 'Gates: Lint'],
      ['gate.ran lint', 'Gates: Build'],
      ['gate.ran build', "Gates: The project's tests"],
      ['gate.ran projectTests', 'Gates: Review of the code'],
      ['model.called', 'Gates: Review of the code'],
      ['gate.ran implementationReview', 'Gates: Review of the tests'],
      ['model.called', 'Gates: Review of the tests'],
      ['gate.ran testReview', 'Gates: Coverage of the changed lines'],
      ['gate.ran coverage', 'Confirming the verdict'],
      ['run.finished', null],
    ]);
  });

  it("names the ticket's typed changes between the rendered tests and the first attempt", () => {
    const steps = walk(log('BLOG-10-ops'));
    const from = steps.findIndex(([type]) => type === 'tests.materialized');
    assert.deepEqual(steps.slice(from, from + 6), [
      ['tests.materialized', "Applying the ticket's typed changes"],
      ['file.baselined', "Applying the ticket's typed changes"],
      ['files.written', "Applying the ticket's typed changes"],
      ['op.applied', "Checking the code after the ticket's typed changes"],
      ['ops.checked', 'Attempt 1: the Coder is writing'],
      ['model.called', 'Attempt 1: the Coder is writing'],
    ]);
  });

  it('waits for a decision, goes on after it without checking the project again, and names the Debugger after a broken project test', () => {
    // BLOG-4 run after BLOG-1 in one folder: a scope correction, accepted; BLOG-1's test then fails.
    const steps = walk(log('BLOG-4-after-BLOG-1'));
    const from = steps.findIndex(([type]) => type === 'correction.requested');
    assert.deepEqual(steps.slice(from, from + 8), [
      ['correction.requested', 'Waiting for you: a correction to accept or reject'],
      ['run.finished', null],
      ['correction.accepted', 'Going on after your decision'],
      ['file.baselined', 'Going on after your decision'],
      ['files.written', 'Going on after your decision'],
      ['run.resumed', 'Going on with the run'],
      ['manifest.built', 'Rendering the tests'],
      ['tests.materialized', 'Attempt 2: the Coder is writing'],
    ]);
    assert.deepEqual(steps.slice(-4), [
      ['tests.ran', "Attempt 2: running the project's own tests that use the change"],
      ['projectTests.ran', 'Attempt 2: the Debugger is diagnosing'],
      ['model.called', 'Attempt 2: the Debugger is diagnosing'],
      ['run.finished', null],
    ]);
  });

  it('shows one state for the checks before the run whichever of the two ends first', () => {
    const events = log('BLOG-1-passes');
    const types = events.map((e) => e.type);
    const [baseline, tests] = [types.indexOf('baseline.recorded'), types.indexOf('projectTests.baseline')];
    // The project's tests end before its type check: the two run side by side.
    const swapped = renumbered([...events.slice(0, baseline), events[tests]!, events[baseline]!, ...events.slice(tests + 1)]);
    assert.equal(swapped[baseline]!.type, 'projectTests.baseline');
    assert.equal(labelAfter(swapped, baseline), BEFORE_THE_RUN);
    assert.equal(labelAfter(swapped, baseline + 1), 'Rendering the tests');
  });

  it('goes from the passing tests straight to the first gate when no project test was taken before the run', () => {
    const events = renumbered(log('BLOG-1-passes').filter((e) => e.type !== 'projectTests.baseline' && e.type !== 'projectTests.ran'));
    const passed = events.findIndex((e) => e.type === 'tests.ran' && e.result.status === 'passed');
    assert.equal(labelAfter(events, passed), 'Gates: Type check of the whole project');
  });

  it("names a gate's repair, its checks again, then the next gate", () => {
    const events = log('BLOG-1-passes');
    const lint = events.findIndex((e) => e.type === 'gate.ran' && e.gate === 'lint');
    const gate = events[lint] as Extract<RunEvent, { type: 'gate.ran' }>;
    const repaired = renumbered([
      ...events.slice(0, lint),
      { ...gate, status: 'failed', detail: '1 problem' },
      { ...gate, status: 'passed', detail: 'clean', repaired: true, afterRepairOf: 'lint' },
      { ...gate, gate: 'typecheck', status: 'passed', detail: 'clean', afterRepairOf: 'lint' },
      {
        type: 'repair.attempted',
        runId: gate.runId,
        seq: 0,
        ts: gate.ts,
        gate: 'lint',
        ok: true,
        detail: 'the lint gate passes after the repair',
        files: [],
      },
    ]);
    assert.deepEqual(
      repaired.slice(lint).map((_, i) => labelAfter(repaired, lint + i)),
      [
        'Gates: repairing what Lint found',
        'Gates: checking again after the repair for Lint',
        'Gates: checking again after the repair for Lint',
        'Gates: Build',
      ],
    );
  });

  it("needs only the last event that ended a step: the editor's notification, which keeps just that one, says what the run view says", () => {
    for (const events of [log('BLOG-1-passes'), log('BLOG-10-ops'), log('BLOG-4-after-BLOG-1'), webviewLog('BLOG-3')]) {
      let step: RunEvent | undefined;
      events.forEach((e, i) => {
        if (!withinAStep(e)) step = e;
        const state = reduceRun(e.runId, events.slice(0, i + 1));
        assert.deepEqual(runStage(state, [step!]), runStage(state, events.slice(0, i + 1)), `after event ${i} (${e.type})`);
      });
    }
  });

  it('says the run waits for the operator while a correction is pending, whatever event came last', () => {
    const events = webviewLog('BLOG-3');
    const upToRequest = events.findIndex((e) => e.type === 'correction.requested');
    const kept = events.slice(0, upToRequest + 1);
    const s = runStage(reduceRun(kept[0]!.runId, kept), kept);
    assert.equal(s?.step, 'waiting');
  });

  it('has no stage before the first event', () => {
    assert.equal(runStage(reduceRun('x', []), []), null);
  });
});
