import assert from 'node:assert/strict';
import { resumeRun } from '../../../src/core';
import type { ModelPort } from '../../../src/core/ports/model';
import { scriptPosition } from '../../../src/node/models/scripted';
import { scripted } from '../../fakes/fakeDeps';
import { eventsOf, ofType, pureRun } from './loopRig';

/**
 * A run that was stopped after an attempt passed goes on from its log: the tests run again (a
 * recheck, recorded as an attempt of its own), then the gates. The scripted model reads on where
 * the run left its recording, as the CLI and the editor wire it (scriptPosition). The gates are
 * the reviewers' (the tools' gates answer only what was recorded, and BLOG-1 was recorded without
 * them); the kill -9
 * versions are in test/runs/cli/crashSafe.test.ts.
 */
describe('pure: resume after an attempt passed', () => {
  it("cancelled while the gates judge BLOG-1's passing attempt, it resumes with the tests again, then every gate, and passes on the recording of the uninterrupted run", async () => {
    const controller = new AbortController();
    const stopAtTestReview = (deps: { model: ModelPort }) => {
      const inner = deps.model;
      deps.model = Object.create(inner, {
        complete: {
          value: (request: Parameters<ModelPort['complete']>[0], signal: AbortSignal) => {
            if (request.role === 'testReviewer') controller.abort();
            return inner.complete(request, signal);
          },
        },
      }) as ModelPort;
    };
    const stopped = await pureRun('BLOG-1', {
      gates: { enabled: ['implementationReview', 'testReview'] },
      signal: controller.signal,
      patch: stopAtTestReview,
    });
    assert.equal(stopped.state.status, 'cancelled', JSON.stringify(stopped.state.finished));
    assert.deepEqual(
      stopped.state.attempts.map((a) => [a.n, a.status]),
      [
        [1, 'failed'],
        [2, 'passed'],
      ],
    );
    const judged = (gates: { gate: string; status: string }[]) =>
      gates.filter((g) => g.status !== 'skipped').map((g) => `${g.gate}:${g.status}`);
    assert.deepEqual(judged(stopped.state.gates), ['implementationReview:passed'], 'stopped in its second judged gate');

    const events = await eventsOf(stopped.rig, stopped.runId);
    const model = scripted(stopped.fixture, stopped.ticket, undefined, scriptPosition(stopped.runId, events));
    const resumed = await resumeRun(stopped.rig.withModel(model), stopped.runId, {
      signal: new AbortController().signal,
      reason: 'the test resumes it',
    });
    assert.equal(resumed.state.status, 'passed', JSON.stringify(resumed.state.finished));
    const after = await eventsOf(stopped.rig, stopped.runId);
    assert.deepEqual(
      ofType(after, 'run.resumed').map((e) => [e.from, e.attempt]),
      [['tests', 2]],
    );
    assert.deepEqual(
      resumed.state.attempts.map((a) => [a.n, a.status, Boolean(a.recheck)]),
      [
        [1, 'failed', false],
        [2, 'passed', false],
        [3, 'passed', true],
      ],
    );
    // The gates run again from the first, once each in the view; the cut-short step is in the log only.
    assert.deepEqual(judged(resumed.state.gates), ['implementationReview:passed', 'testReview:passed']);
    assert.equal(
      new Set(resumed.state.gates.map((g) => g.gate)).size,
      resumed.state.gates.length,
      JSON.stringify(resumed.state.gates.map((g) => g.gate)),
    );
    assert.equal(
      ofType(after, 'gate.ran').filter((e) => e.gate === 'implementationReview').length,
      2,
      'both runs of the first gate are in the log',
    );
    // The code is the one the first review passed: that verdict stands; the test review, cut short, is asked again.
    assert.match(resumed.state.gates.find((g) => g.gate === 'implementationReview')!.detail, /unchanged since its review passed/);
    assert.deepEqual(model.remaining(), { coder: 0, debugger: 0, reviewer: 1, testReviewer: 0 });
  });
});
