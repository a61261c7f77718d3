import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { reduceRun } from '../../../src/core/run/reducer';
import { recorded } from '../../support/recordedRuns';
import { RunEvent } from '../../../src/core/schema/events';
import { parseHostMessage, parseWebviewMessage } from '../../../src/shared/protocol';
import { lineOf, timelineOf } from '../../../src/core/run/views/timeline';
import { runNode, runTitle, startedLabel } from '../../../src/core/run/views/runTree';
import { lineDiff, withContext } from '../../../webview-ui/diff';

/** The views read no clock: "today" is the host's, given. */
const NOW = new Date('2026-11-23T18:00:00.000Z');

describe('run views (pure projections of the log)', () => {
  it('the tree of a run that needs the operator: attempt, checks, diagnosis quotes, route, correction', () => {
    const { state } = recorded('BLOG-3');
    const root = runNode(state, NOW);
    assert.equal(root.label, 'BLOG-3', 'the ticket id; its title is in the tooltip');
    assert.match(root.tooltip ?? '', /^BLOG-3: \S/, 'the ticket id and its title');
    assert.equal(root.contextValue, 'run.needsOperator');
    assert.equal(root.icon, 'question');
    assert.match(root.description ?? '', / · recorded$/);
    assert.match(root.accessibleLabel, /^BLOG-3, waiting for your decision: .*, recorded sample$/, 'the outcome first, in words');
    // The correction's id (a row of its own, decided with a click) helps no one in the tree: not even its tooltip.
    assert.match(root.tooltip ?? '', /\nwaiting for your decision: correction proposed: .+ is wrong\n/);
    const requestId = state.corrections[0]!.request.id;
    for (const n of allNodes(root)) assert.ok(![n.label, n.description, n.tooltip].join(' ').includes(requestId), n.id);
    assert.match(root.tooltip ?? '', /correction proposed: the ticket is wrong/);
    const attempt = root.children.find((c) => c.contextValue === 'attempt')!;
    const kinds = attempt.children.map((c) => c.contextValue);
    for (const k of ['parse', 'diagnostics', 'tests', 'diagnosis', 'route']) assert.ok(kinds.includes(k), k);
    const diagnosis = attempt.children.find((c) => c.contextValue === 'diagnosis')!;
    assert.equal(diagnosis.children.length, state.attempts[0]!.diagnosis!.evidence.length);
    const correction = root.children.find((c) => c.contextValue === 'correction')!;
    assert.equal(correction.icon, 'question');
    assert.equal(new Set(allIds(root)).size, allIds(root).length, 'ids are unique, so the tree keeps its expansion');
  });

  it('a run whose log stops mid-way and whose process is gone is interrupted, with Resume offered', () => {
    const { events } = recorded('BLOG-1');
    const cut = events.slice(
      0,
      events.findIndex((e) => e.type === 'router.routed'),
    );
    const state = reduceRun(cut[0]!.runId, cut);
    assert.equal(state.status, 'running');
    const root = runNode(state, NOW, 'interrupted');
    assert.equal(root.contextValue, 'run.interrupted');
    assert.equal(root.icon, 'debug-disconnect');
    assert.match(root.tooltip ?? '', /\ninterrupted: its process is gone \(Resume Run continues it\)\n/);
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { menus: Record<string, { command: string; when?: string }[]> };
    };
    const resume = pkg.contributes.menus['view/item/context']!.filter((m) => m.command === 'ticketRunner.resumeRun');
    assert.ok(resume.length && resume.every((m) => new RegExp(/viewItem =~ \/(.*)\/$/.exec(m.when!)![1]!).test(root.contextValue)));
  });

  it('a passed run is green, with one node per attempt', () => {
    const { state } = recorded('BLOG-1');
    const root = runNode(state, NOW);
    assert.equal(root.icon, 'pass');
    assert.equal(root.children.filter((c) => c.contextValue === 'attempt').length, state.attempts.length);
  });

  it('the run\'s first node says where its processes ran: "sandbox: on", or "sandbox: off (reason)" as a warning; none for older logs', () => {
    const { state } = recorded('BLOG-1');
    assert.ok(!runNode(state, NOW).children.some((c) => c.contextValue === 'sandbox'), 'a log from before the sandbox says nothing');
    const on = runNode({ ...state, sandbox: { on: true, detail: 'bubblewrap' } }, NOW).children[0]!;
    assert.deepEqual([on.contextValue, on.label, on.icon], ['sandbox', 'sandbox: on (bubblewrap)', 'shield']);
    const off = runNode({ ...state, sandbox: { on: false, detail: 'bubblewrap (bwrap) not installed' } }, NOW).children[0]!;
    assert.deepEqual(
      [off.contextValue, off.label, off.icon, off.color],
      ['sandbox', 'sandbox: off (bubblewrap (bwrap) not installed)', 'warning', 'editorWarning.foreground'],
    );
  });

  it('the timeline has an entry per event worth showing, typed by status', () => {
    const { events } = recorded('BLOG-3');
    const t = timelineOf(events);
    assert.equal(t[0]!.type, 'run.started');
    assert.equal(t[t.length - 1]!.status, 'needsOperator');
  });

  it("the timeline has a row per model call, carrying the call's index for the control that opens its prompt", () => {
    const { events, state } = recorded('BLOG-1');
    const rows = timelineOf(events).filter((x) => x.type === 'model.called');
    assert.equal(rows.length, state.modelCalls.length);
    assert.deepEqual(
      rows.map((r) => r.call),
      state.modelCalls.map((_, i) => i),
    );
    assert.deepEqual(
      rows.map((r) => r.attempt),
      state.modelCalls.map((c) => c.attempt),
    );
    assert.match(rows[0]!.label, /^Coder model call: \d+ tokens, \d+\.\d s$/);
    assert.ok(
      timelineOf(events)
        .filter((x) => x.type !== 'model.called')
        .every((x) => x.call === undefined),
      "only a call's row has a call index",
    );
  });

  it('refuses a model/show message that names no call, with a clear error', () => {
    assert.ok(parseWebviewMessage({ type: 'model/show', call: 2 }).ok);
    for (const bad of [
      { type: 'model/show', call: -1 },
      { type: 'model/show', call: 1.5 },
      { type: 'model/show', call: '2' },
      { type: 'model/show' },
      { type: 'model/show', call: 1, path: '/etc/passwd' },
    ]) {
      const r = parseWebviewMessage(bad);
      assert.ok(!r.ok, JSON.stringify(bad));
      assert.match(r.error, /^invalid message "model\/show": /);
    }
  });

  it('the protocol accepts what the host builds and refuses malformed messages, saying which', () => {
    const { events, state } = recorded('BLOG-3');
    const ok = parseHostMessage({
      type: 'run/state',
      state,
      timeline: timelineOf(events),
      blobs: {},
      quotes: [],
      mode: 'live',
      position: { seq: 0, total: events.length },
      canDecide: true,
    });
    assert.ok(ok.ok, ok.ok ? '' : ok.error);
    const bad = parseWebviewMessage({ type: 'correction/reject', id: 'r1', runId: 'x', requestId: 'y', reason: '   ' });
    assert.ok(!bad.ok);
    assert.match(bad.error, /invalid message "correction\/reject": reason/);
    assert.ok(
      !parseWebviewMessage({ type: 'correction/accept', id: 'r1', runId: 'x', requestId: 'y', extra: 1 }).ok,
      'strict: unknown keys are refused',
    );
  });

  it('the tree speaks in plain words: no internal name in any label or description', () => {
    for (const name of ['BLOG-1', 'BLOG-3']) {
      const { state } = recorded(name);
      const words = allNodes(runNode(state, NOW)).map((n) => `${n.label} ${n.description ?? ''}`);
      for (const w of words)
        assert.doesNotMatch(
          w,
          /needsOperator|testPlan|notNeeded|testFile|testOutput|correctionRequested|guard (confirmed|abstained|overridden)|by webview/,
          w,
        );
    }
    const blog3 = allNodes(runNode(recorded('BLOG-3').state, NOW));
    assert.ok(
      blog3.some((n) => n.label === 'correction: the ticket is wrong'),
      blog3.map((n) => n.label).join('\n'),
    );
    assert.ok(blog3.some((n) => n.label === 'sent to you: change the ticket' && n.description === 'confirmed by a check'));
  });

  it('an attempt says why it failed in one line', () => {
    const { state } = recorded('BLOG-1');
    const failed = runNode(state, NOW).children.find((c) => c.id.endsWith('attempt:1'))!;
    assert.match(failed.description ?? '', /^failed: 1 test\(s\) failed · /);
  });

  it('a rolled-back run says so everywhere: its icon, its description, its screen-reader label, its tooltip (in local time) and its tab', () => {
    const { events, state } = recorded('BLOG-1');
    const rolled = reduceRun(events[0]!.runId, [
      ...events,
      RunEvent.parse({ runId: events[0]!.runId, seq: events.length, ts: events[events.length - 1]!.ts, type: 'run.rolledBack', files: [] }),
    ]);
    const root = runNode(rolled, NOW, rolled.status, { timeZone: 'Europe/Berlin' });
    assert.equal(runNode(state, NOW).icon, 'pass');
    assert.deepEqual([root.icon, root.color], ['discard', 'disabledForeground'], 'never the green check of the pass it once was');
    // The label is the ticket alone, so the description's few words fit a sidebar of default width.
    assert.equal(root.label, 'BLOG-1');
    assert.equal(root.description, 'rolled back · 11:00 · recorded');
    assert.match(root.tooltip ?? '', /^BLOG-1: \S.*\nfiles put back · before that: passed\n/);
    assert.match(root.accessibleLabel, /^BLOG-1, rolled back, files put back/);
    // The log's UTC (10:00:06Z) in the user's zone, and no ISO stamp.
    assert.match(root.tooltip ?? '', /\nRun \S+, started 2026-11-23 11:00:06, last event 2026-11-23 11:00:10\n/);
    assert.doesNotMatch(root.tooltip ?? '', /\d{4}-\d\d-\d\dT\d\d:/);
    assert.match(root.tooltip ?? '', /\nRolled back: the files it wrote were put back/);
    assert.match(runTitle(rolled, NOW), / · rolled back$/);
  });

  it('tab titles tell two runs of one ticket apart: id, start time and status', () => {
    const { state } = recorded('BLOG-1');
    const title = runTitle(state, NOW);
    assert.match(title, /^BLOG-1 (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2} · passed$/);
    const later = { ...state, startedAt: new Date(Date.parse(state.startedAt!) + 60_000).toISOString() };
    assert.notEqual(runTitle(later, NOW), title);
    assert.match(runTitle(recorded('BLOG-3').state, NOW, 'needsOperator', 'replay'), /^Replay BLOG-3 .* · waiting for your decision$/);
    assert.equal(startedLabel('2026-11-23T09:15:00.000Z', new Date('2026-11-23T18:00:00.000Z'), 'UTC'), '09:15', 'today: the time only');
    assert.equal(startedLabel('2026-11-20T09:15:00.000Z', new Date('2026-11-23T18:00:00.000Z'), 'UTC'), '2026-11-20 09:15');
    // In the user's zone, the day too: 23:30 UTC is already the next day in Tokyo.
    assert.equal(startedLabel('2026-11-23T09:15:00.000Z', NOW, 'Europe/Berlin'), '10:15');
    assert.equal(startedLabel('2026-11-22T23:30:00.000Z', new Date('2026-11-23T01:00:00.000Z'), 'Asia/Tokyo'), '08:30');
    // A replay part way through is not "running".
    const partWay = reduceRun(recorded('BLOG-1').events[0]!.runId, recorded('BLOG-1').events.slice(0, 5));
    assert.match(runTitle(partWay, NOW, partWay.status, 'replay'), /^Replay BLOG-1 (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}$/);
  });

  it('every row has a screen-reader label with its status in words, and never a stack trace', () => {
    const nodes = allNodes(runNode(recorded('BLOG-1').state, NOW));
    const failedCase = nodes.find((n) => n.contextValue === 'case');
    assert.ok(failedCase, 'BLOG-1 has a failed test case in its first attempt');
    assert.match(failedCase.tooltip ?? '', /\n\s+at /, 'the tooltip keeps the stack for the mouse');
    assert.match(failedCase.accessibleLabel, /, failed, /);
    for (const n of nodes) {
      assert.ok(n.accessibleLabel.startsWith(n.label), n.id);
      assert.doesNotMatch(n.accessibleLabel, /\n\s+at /, `${n.id} reads no stack`);
    }
    assert.match(nodes[0]!.accessibleLabel, /^BLOG-1, passed, /);
  });

  it('line diff and quote lines', () => {
    const d = lineDiff('a\nb\nc\nd', 'a\nB\nc\nd\ne');
    assert.deepEqual(
      d.map((l) => `${l.op}${l.text}`),
      [' a', '-b', '+B', ' c', ' d', '+e'],
    );
    assert.deepEqual(
      withContext(lineDiff('1\n2\n3\n4\n5\n6\n7\n8', '1\n2\n3\n4\n5\n6\n7\nX'), 1).map((l) => (l ? l.op + l.text : null)),
      [null, ' 7', '-8', '+X'],
    );
    assert.equal(lineOf('one\ntwo\nthree', 'three'), 3);
    assert.equal(lineOf('one\ntwo', 'missing'), null);
  });
});

function allNodes<T extends { children: T[] }>(n: T): T[] {
  return [n, ...n.children.flatMap((c) => allNodes(c))];
}

function allIds(n: { id: string; children: { id: string; children: unknown[] }[] }): string[] {
  return [n.id, ...n.children.flatMap((c) => allIds(c as typeof n))];
}
