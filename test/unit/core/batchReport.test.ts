import assert from 'node:assert/strict';
import { reduceRun } from '../../../src/core/run/reducer';
import { RunEvent } from '../../../src/core/schema/events';
import { batchEntry, batchExitCode, batchJunit, batchReport, entryWithoutRun } from '../../../src/core/run/views/batchReport';
import { EXIT } from '../../../src/cli/exitCodes';
import { endedAfter, recorded } from '../../support/recordedRuns';
import { outcomeLine } from '../../../src/shared/protocol';

describe('the batch report (src/core/run/views/batchReport.ts)', () => {
  it('does not believe a log that says passed when its process did not exit 0', () => {
    const state = recorded('BLOG-1').state;
    assert.equal(state.status, 'passed');
    assert.equal(
      batchEntry('.tickets/BLOG-1.ticket.json', state, { exitCode: 0, expectedExit: EXIT.passed, workspace: null }).outcome,
      'passed',
    );
    const lied = batchEntry('.tickets/BLOG-1.ticket.json', state, { exitCode: 1, expectedExit: EXIT.passed, workspace: null });
    assert.equal(lied.outcome, 'error');
    assert.match(lied.stop, /its log says passed \(tests passed\) but its process exited 1: not believed/);
    const report = batchReport([lied], 10);
    assert.equal(report.totals.passed, 0);
    assert.equal(batchExitCode(report, EXIT), EXIT.failed);
    assert.match(batchJunit(report), /<error message="its log says passed/);
  });

  it('names, for a pass, each asked-for gate that did not judge the change (a skip, an optional gate that could not run), never one the run was not asked for', () => {
    const { state: base, events } = recorded('BLOG-1');
    const finished = events.at(-1)!;
    const gate = (seq: number, g: string, status: string, detail: string, optional?: boolean) =>
      RunEvent.parse({
        runId: base.runId,
        seq,
        ts: finished.ts,
        type: 'gate.ran',
        gate: g,
        status,
        detail,
        repaired: false,
        durationMs: 1,
        ...(optional ? { optional } : {}),
      });
    const n = events.length - 1;
    const withGates = [
      ...events.slice(0, -1),
      gate(n, 'typecheck', 'passed', 'clean'),
      gate(n + 1, 'lint', 'skipped', 'no ESLint config in the workspace'),
      gate(n + 2, 'build', 'skipped', 'not enabled'),
      gate(n + 3, 'coverage', 'error', 'the runner cannot measure coverage here', true),
      RunEvent.parse({ ...finished, seq: n + 4 }),
    ];
    const state = reduceRun(base.runId, withGates);
    assert.equal(state.status, 'passed');
    const e = batchEntry('.tickets/BLOG-1.ticket.json', state, { exitCode: 0, expectedExit: EXIT.passed, workspace: null });
    assert.deepEqual(e.notChecked, ['lint: no ESLint config in the workspace', 'coverage: the runner cannot measure coverage here']);
    const junit = batchJunit(batchReport([e], 10));
    assert.match(
      junit,
      /<property name="notChecked" value="lint: no ESLint config in the workspace; coverage: the runner cannot measure coverage here"\/>/,
    );
    assert.match(junit, /<system-out>passed; not checked: lint: no ESLint config/);
    assert.deepEqual(
      batchEntry('.tickets/BLOG-1.ticket.json', base, { exitCode: 0, expectedExit: EXIT.passed, workspace: null }).notChecked,
      [],
    );
  });

  it('counts a ticket that waits for the operator as skipped, never as passed or failed, with its resolve commands', () => {
    const state = recorded('BLOG-3').state;
    const e = batchEntry('.tickets/BLOG-3.ticket.json', state, {
      exitCode: 2,
      expectedExit: EXIT.needsOperator,
      workspace: "/tmp/it's here",
      modelOption: '--model scripted',
    });
    assert.equal(e.outcome, 'needsOperator');
    assert.equal(e.corrections[0]!.accept, `ticket-runner resolve ${state.runId} accept --workspace '/tmp/it'\\''s here' --model scripted`);
    const report = batchReport([e], null);
    assert.equal(batchExitCode(report, EXIT), EXIT.needsOperator);
    assert.match(batchJunit(report), /failures="0" errors="0" skipped="1"/);
  });

  it('a ticket the spent dollar cap never started fails the batch (exit 1), not a cancel; without the cap reached it is a cancel', () => {
    const passed = batchEntry('.tickets/BLOG-1.ticket.json', recorded('BLOG-1').state, {
      exitCode: 0,
      expectedExit: EXIT.passed,
      workspace: null,
    });
    const unstarted = entryWithoutRun(
      '.tickets/BLOG-9.ticket.json',
      'BLOG-9',
      'notStarted',
      "not started: the batch's dollar budget was spent ($1.0100 of $1)",
      null,
    );
    const spent = batchReport([passed, unstarted], 10, { maxDollars: 1, spentUsd: 1.01, reached: true });
    assert.equal(batchExitCode(spent, EXIT), EXIT.failed);
    const xml = batchJunit(spent);
    assert.match(
      xml,
      /<property name="maxDollars" value="1"\/><property name="spentUsd" value="1\.010000"\/><property name="budgetReached" value="true"\/>/,
    );
    assert.match(xml, /<error message="not started: the batch's dollar budget was spent \(\$1\.0100 of \$1\)" type="notStarted">/);
    // A cap that was not reached cannot turn a cancelled batch's unstarted tickets into a plain failure.
    assert.equal(
      batchExitCode(batchReport([passed, unstarted], 10, { maxDollars: 1, spentUsd: 0.2, reached: false }), EXIT),
      EXIT.cancelled,
    );
    assert.equal(batchExitCode(batchReport([passed, unstarted], 10), EXIT), EXIT.cancelled);
    assert.doesNotMatch(batchJunit(batchReport([passed], 10)), /maxDollars/);
  });

  it('a ticket stopped on a held-out failure names the criterion the fix was too narrow for; each says how many visible cases, held-out cases and property runs judged it', () => {
    const narrow = endedAfter('BLOG-14', (e) => e.type === 'heldOut.ran' && e.attempt === 1, {
      outcome: 'failed',
      reason: { kind: 'retryBudgetSpent', attempts: 1 },
      attempts: 1,
    }).state;
    const failed = batchEntry('.tickets/BLOG-14.ticket.json', narrow, { exitCode: 1, expectedExit: EXIT.failed, workspace: null });
    assert.deepEqual(failed.judgedBy, { visible: 2, heldOut: 1, propertyRuns: 0, heldOutFailed: 1, heldOutCriteria: ['AC2'] });
    const passed = batchEntry('.tickets/BLOG-14.ticket.json', recorded('BLOG-14').state, {
      exitCode: 0,
      expectedExit: EXIT.passed,
      workspace: null,
    });
    const xml = batchJunit(batchReport([failed, passed], 10));
    const [failedCase, passedCase] = xml.split('<testcase ').slice(1);
    assert.match(
      failedCase!,
      /<failure message="retry budget spent after 1 attempt\(s\); the held-out cases failed for AC2: the fix is too narrow" type="failed">/,
    );
    assert.match(
      failedCase!,
      /<property name="visibleCases" value="2"\/><property name="heldOutCases" value="1"\/><property name="propertyRuns" value="0"\/><property name="heldOutFailedFor" value="AC2"\/>/,
    );
    assert.match(
      failedCase!,
      /judged by: 2 visible case\(s\), 1 held-out case\(s\), 0 property run\(s\)\nheld-out cases failed: 1 of 1, the fix too narrow for AC2/,
    );
    assert.match(
      passedCase!,
      /<property name="visibleCases" value="2"\/><property name="heldOutCases" value="1"\/><property name="propertyRuns" value="0"\/><\/properties>/,
    );
    assert.doesNotMatch(passedCase!, /heldOutFailedFor|<failure/);
    // A ticket that never ran was judged by nothing, and says nothing of it.
    const unstarted = entryWithoutRun('.tickets/BLOG-9.ticket.json', 'BLOG-9', 'notStarted', 'not started', null);
    assert.equal(unstarted.judgedBy, null);
    assert.doesNotMatch(batchJunit(batchReport([unstarted], 0)), /visibleCases/);
  });

  it("a run stopped because the test runner stayed changed: the JUnit failure and the run view's outcome line each name the changed files", () => {
    const events = recorded('BLOG-1').events;
    const finished = events.at(-1)!;
    const files = [
      { path: 'node_modules/co/index.js', change: 'modified', sha256: 'a'.repeat(64) },
      { path: 'node_modules/tsx.js', change: 'created', sha256: null },
    ];
    const stopped = RunEvent.parse({ ...finished, outcome: 'failed', reason: { kind: 'judgingToolsChanged', files } });
    const state = reduceRun(finished.runId, [...events.slice(0, -1), stopped]);
    assert.equal(state.status, 'failed');
    const named =
      /the test runner was changed by the code under test and could not be restored; reinstall \(npm ci\) and run again \(modified node_modules\/co\/index\.js, created node_modules\/tsx\.js\)/;
    const junit = batchJunit(
      batchReport([batchEntry('.tickets/BLOG-1.ticket.json', state, { exitCode: 1, expectedExit: EXIT.failed, workspace: null })], 10),
    );
    assert.match(junit, new RegExp(`<failure message="${named.source}" type="failed">`));
    // As the webview's outcome line and the editor's announcement call it.
    assert.match(outcomeLine(state.finished!, { requestIds: false, gateNames: false }), new RegExp(`^failed: ${named.source}$`));
  });

  it('escapes what a stop reason may carry into the XML: quotes, angle brackets, ampersands, control characters', () => {
    const hostile = entryWithoutRun('.tickets/X.ticket.json', 'X', 'error', 'bad "ticket" <x> & \u0001 end', 3);
    const xml = batchJunit(batchReport([hostile], 0));
    assert.match(xml, /<error message="bad &quot;ticket&quot; &lt;x&gt; &amp;  end" type="error">/);
    // Every tag opened is closed: nothing from the message broke the structure.
    assert.equal((xml.match(/<testcase /g) ?? []).length, (xml.match(/<\/testcase>/g) ?? []).length);
  });
});
