import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { encodeEvent } from '../../../src/core/run/logCodec';
import { applyEvent, emptyRunState } from '../../../src/core/run/reducer';
import { RunStateSchema, type RunState } from '../../../src/core/run/runState';
import { formatRunReport } from '../../../src/core/run/views/report';
import { judgedByText, verdictLines, verdictText } from '../../../src/core/run/views/verdict';
import type { RunEvent } from '../../../src/core/schema/events';
import { cli } from '../../support/cli';
import { endedAfter, recorded } from '../../support/recordedRuns';

/** BLOG-14 stopped after attempt 1, whose held-out case failed: a fix too narrow for AC2. */
const tooNarrow = () =>
  endedAfter('BLOG-14', (e) => e.type === 'heldOut.ran' && e.attempt === 1, {
    outcome: 'failed',
    reason: { kind: 'retryBudgetSpent', attempts: 1 },
    attempts: 1,
  });

/** `show` and `show --json` of a log, through the CLI, from a workspace holding only that log. */
async function show(events: RunEvent[], json: boolean): Promise<string> {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-judged-'));
  try {
    const dir = path.join(base, '.ticket-runner', 'runs', events[0]!.runId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'events.jsonl'), events.map(encodeEvent).join(''));
    const shown = await cli(['show', path.join(dir, 'events.jsonl'), ...(json ? ['--json'] : [])]);
    assert.equal(shown.code, 0, shown.err);
    return shown.out;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

describe('what judged the change: visible cases, held-out cases, property runs (judgedBy)', () => {
  it('a run stopped on a held-out failure counts the cases that judged it and names the criterion the fix was too narrow for, in show and show --json', async () => {
    const { events, state } = tooNarrow();
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.judgedBy, { attempt: 1, visible: 2, heldOut: 1, propertyRuns: 0, heldOutFailed: 1, heldOutCriteria: ['AC2'] });
    assert.equal(judgedByText(state), '2 visible cases, 1 held-out case and 0 property runs');
    assert.ok(verdictLines(state).map(verdictText).includes('Held-out cases: 1 of 1 failed: the fix is too narrow for AC2'));

    const report = (await show(events, false)).split('\n');
    const judged = report.indexOf('Judged by: 2 visible cases, 1 held-out case and 0 property runs');
    assert.ok(
      judged > report.indexOf('What was checked:') && judged < report.findIndex((l) => l.startsWith('Attempt 1:')),
      report.join('\n'),
    );
    assert.ok(report.includes('  Held-out cases: 1 of 1 failed: the fix is too narrow for AC2'), report.join('\n'));
    assert.deepEqual((JSON.parse(await show(events, true)) as RunState).judgedBy, state.judgedBy);
  });

  it("a passed run is judged by its last attempt's runs, not by the earlier attempt's held-out failure", () => {
    const { state } = recorded('BLOG-14');
    assert.equal(state.status, 'passed');
    assert.deepEqual(state.judgedBy, { attempt: 2, visible: 2, heldOut: 1, propertyRuns: 0, heldOutFailed: 0, heldOutCriteria: [] });
    assert.match(formatRunReport(state), /^Judged by: 2 visible cases, 1 held-out case and 0 property runs$/m);
  });

  it('an attempt that starts leaves no count of the one before it, and a run that holds nothing out is judged by its visible cases alone', () => {
    const { events } = recorded('BLOG-14');
    const live = emptyRunState(events[0]!.runId);
    const seen: (number | undefined)[] = [];
    for (const e of events) {
      applyEvent(live, e);
      if (e.type === 'coder.attempted' || e.type === 'tests.ran' || e.type === 'heldOut.ran')
        seen.push(live.judgedBy && live.judgedBy.heldOut + live.judgedBy.attempt * 10);
    }
    // Attempt 1: nothing, its visible run (no held-out yet), its held-out run; then attempt 2 the same.
    assert.deepEqual(seen, [undefined, 10, 11, undefined, 20, 21]);
    // While it runs, the summary says nothing of what judged it.
    const running = emptyRunState(events[0]!.runId);
    for (const e of events.slice(0, -1)) applyEvent(running, e);
    assert.equal(judgedByText(running), undefined);

    const blog1 = recorded('BLOG-1').state;
    assert.deepEqual(blog1.judgedBy, { attempt: 2, visible: 2, heldOut: 0, propertyRuns: 0, heldOutFailed: 0, heldOutCriteria: [] });
    assert.equal(judgedByText(blog1), '2 visible cases, 0 held-out cases and 0 property runs');
  });

  it('reaches the webview: the run state schema the webview parses keeps judgedBy', () => {
    const { state } = tooNarrow();
    assert.deepEqual(RunStateSchema.parse(JSON.parse(JSON.stringify(state))).judgedBy, state.judgedBy);
  });
  it("counts a property's runs once the visible cases pass, and the held-out plan's only when it passed too", () => {
    const property = {
      kind: 'property',
      not: false,
      arbitraries: ['fc.string()'],
      params: ['s'],
      predicate: 'Array.isArray(pathSegments(s))',
      runs: 40,
    };
    const withProperties = (events: RunEvent[]) =>
      events.map((e) => {
        if (e.type !== 'manifest.built') return e;
        const add = <F extends { cases: { expect: unknown[] }[] }>(files: F[]) =>
          files.map((f, i) => (i === 0 ? { ...f, cases: [...f.cases, { ...f.cases[0]!, name: 'a property', expect: [property] }] } : f));
        return {
          ...e,
          manifest: {
            ...e.manifest,
            testPlan: { ...e.manifest.testPlan, files: add(e.manifest.testPlan.files) },
            heldOut: { ...e.manifest.heldOut, files: add(e.manifest.heldOut.files) },
          },
        };
      });
    const fold = (events: RunEvent[]) => {
      const s = emptyRunState(events[0]!.runId);
      for (const e of events) applyEvent(s, e);
      return s;
    };
    // Attempt 1: the visible cases passed, the held-out ones failed: the visible plan's property ran whole, the held-out one's did not.
    assert.equal(fold(withProperties(tooNarrow().events)).judgedBy?.propertyRuns, 40);
    // The passed run: both plans' properties ran whole.
    assert.equal(fold(withProperties(recorded('BLOG-14').events)).judgedBy?.propertyRuns, 80);
  });
});
