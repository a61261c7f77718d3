import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { editorErrorMessage, UserInputError } from '../../../src/core/errors';
import { reduceRun } from '../../../src/core/run/reducer';
import { runNode } from '../../../src/core/run/views/runTree';
import { timelineOf } from '../../../src/core/run/views/timeline';
import { verdictLines, verdictText } from '../../../src/core/run/views/verdict';
import { RunEvent } from '../../../src/core/schema/events';
import { loadScriptedModel } from '../../../src/node/models/scripted/loadScript';
import { openFirst, ticketChoice } from '../../../src/vscode/ticketChoice';
import { recorded } from '../../support/recordedRuns';

const NOW = new Date('2026-11-23T18:00:00.000Z');

/** Every label, description and tooltip of a tree. */
function treeText(n: { label: string; description?: string; tooltip?: string; children: unknown[] }): string[] {
  return [`${n.label} ${n.description ?? ''} ${n.tooltip ?? ''}`, ...(n.children as (typeof n)[]).flatMap(treeText)];
}

/** BLOG-1 with gates after its pass: the last run of each gate is its verdict. */
function withGates() {
  const { events } = recorded('BLOG-1');
  const last = events[events.length - 1]!;
  const base = { runId: last.runId, ts: last.ts };
  const gate = (seq: number, gate: string, status: string, detail: string, extra: object = {}) =>
    RunEvent.parse({ ...base, seq, type: 'gate.ran', gate, status, detail, repaired: false, durationMs: 5, ...extra });
  const gates = [
    gate(last.seq, 'typecheck', 'passed', 'no new type errors'),
    gate(last.seq + 1, 'lint', 'skipped', 'no ESLint config in the workspace'),
    gate(last.seq + 2, 'build', 'skipped', 'not enabled'),
    gate(last.seq + 3, 'projectTests', 'passed', '7 passed'),
    gate(last.seq + 4, 'implementationReview', 'error', 'the model gave no usable answer', { optional: true }),
    gate(last.seq + 5, 'coverage', 'skipped', 'not enabled'),
  ];
  const finished = { ...last, seq: last.seq + 6 };
  const all = [...events.slice(0, -1), ...gates, RunEvent.parse(finished)];
  return reduceRun(last.runId, all);
}

describe('plain words in the views: no internal name, no rung number, no request id', () => {
  it("a finished run's summary says what was checked, each in words: the last attempt's checks, then the gates", () => {
    assert.deepEqual(verdictLines(recorded('BLOG-1').state).map(verdictText), [
      'Syntax: passed',
      'Type check: no new errors',
      'Lint: not checked — no ESLint config in the workspace (eslint.config.* or .eslintrc*)',
      "The ticket's tests: passed (2 of 2)",
      "The project's tests: passed (7 tests in 1 file that use the change)",
    ]);
    // A gate that runs an attempt's check again is said on the check's line: each check once.
    const gated = verdictLines(withGates());
    assert.deepEqual(gated.map(verdictText), [
      'Syntax: passed',
      'Type check: no new errors (the changed files and the whole project)',
      'Lint: not checked — no ESLint config in the workspace (eslint.config.* or .eslintrc*)',
      "The ticket's tests: passed (2 of 2)",
      "The project's tests: passed (7 tests in 1 file that use the change)",
      'Review of the code: not judged (optional) — the model gave no usable answer',
      'Not enabled: Build, Coverage of the changed lines',
    ]);
    for (const l of gated) assert.doesNotMatch(verdictText(l), /projectTests|implementationReview|typecheck|testReview/);
    // While a run goes, there is no verdict to sum up.
    const { events } = recorded('BLOG-1');
    assert.deepEqual(verdictLines(reduceRun(events[0]!.runId, events.slice(0, 12))), []);
  });

  it("a gate that finds what the attempt's check did not says so on that check's line, which takes the worse status", () => {
    const state = withGates();
    Object.assign(
      state.gates.find((g) => g.gate === 'typecheck')!,
      { status: 'failed', detail: '1 error the change reaches' },
    );
    Object.assign(
      state.gates.find((g) => g.gate === 'projectTests')!,
      { status: 'failed', detail: '1 test that passed before now fails' },
    );
    const lines = verdictLines(state);
    const said = (key: string) => {
      const l = lines.find((x) => x.key === key)!;
      return [l.status, verdictText(l)];
    };
    assert.deepEqual(said('check:types'), [
      'failed',
      'Type check: no new errors (the changed files); failed — 1 error the change reaches (the whole project)',
    ]);
    assert.deepEqual(said('check:projectTests'), ['failed', "The project's tests: failed — 1 test that passed before now fails"]);
    assert.deepEqual(
      lines.filter((l) => l.key.startsWith('gate:')).map((l) => l.key),
      ['gate:implementationReview'],
    );
  });

  it('the tree and the timeline say what a rung did, name gates by what they check, and never show a request id', () => {
    const blog1 = runNode(recorded('BLOG-1').state, NOW);
    const rung = blog1.children.find((c) => c.id.endsWith('attempt:2'))!.children.find((c) => c.contextValue === 'rung')!;
    assert.equal(rung.label, 'asked the Coder again, with the failure');
    const gated = runNode(withGates(), NOW);
    const texts = [
      ...treeText(blog1),
      ...treeText(gated),
      ...treeText(runNode(recorded('BLOG-3').state, NOW)),
      ...treeText(runNode(recorded('BLOG-2').state, NOW)),
      ...treeText(runNode(recorded('BLOG-14').state, NOW)),
    ];
    for (const t of texts)
      assert.doesNotMatch(t, /rung \d|\brung\b|-c\d\b|scopeAddition|projectTests|implementationReview|heldOut|judgedBy/, t);
    assert.ok(texts.some((t) => t.startsWith('Review of the code ')));
    for (const name of ['BLOG-1', 'BLOG-2', 'BLOG-3', 'BLOG-14']) {
      for (const t of timelineOf(recorded(name).events)) assert.doesNotMatch(t.label, /rung \d|-c\d\b|scopeAddition|heldOut/, t.label);
    }
  });

  it('a user error that names a flag has an editor wording with settings and commands instead', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tr-words-'));
    try {
      assert.throws(
        () => loadScriptedModel(root, '.tickets/X-1.ticket.json'),
        (err: unknown) => {
          assert.ok(err instanceof UserInputError);
          assert.match(err.message, /--model anthropic/, 'the command line keeps its flag');
          const said = editorErrorMessage(err);
          assert.doesNotMatch(said, /--[a-z]/);
          assert.match(said, /ticketRunner\.model setting/);
          assert.match(said, /Ticket Runner: Save Run as Script/);
          return true;
        },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    assert.equal(editorErrorMessage(new UserInputError('one wording')), 'one wording');
  });
});

describe('Run Ticket takes the ticket you are looking at', () => {
  it('runs the ticket in the active editor; else lists them, an open ticket first', () => {
    assert.deepEqual(ticketChoice('/w/.tickets/BLOG-1.ticket.json', []), { run: '/w/.tickets/BLOG-1.ticket.json' });
    assert.deepEqual(ticketChoice('/w/.tickets/BLOG-2.ticket.yaml', ['/w/.tickets/BLOG-1.ticket.json']), {
      run: '/w/.tickets/BLOG-2.ticket.yaml',
    });
    assert.deepEqual(ticketChoice('/w/src/posts.ts', ['/w/README.md', '/w/.tickets/BLOG-3.ticket.yml']), {
      pick: true,
      first: '/w/.tickets/BLOG-3.ticket.yml',
    });
    assert.deepEqual(ticketChoice(undefined, []), { pick: true });
    assert.deepEqual(ticketChoice('/w/.tickets/BLOG-1.script.json', []), { pick: true }, 'a script is not a ticket');
    const items = ['A', 'B', 'C'].map((x) => ({ path: `/w/.tickets/${x}.ticket.json` }));
    assert.deepEqual(
      openFirst(items, '/w/.tickets/C.ticket.json').map((i) => i.path.slice(-13)),
      ['C.ticket.json', 'A.ticket.json', 'B.ticket.json'],
    );
    assert.deepEqual(openFirst(items, undefined), items);
  });
});
