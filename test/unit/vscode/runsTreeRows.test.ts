import { strict as assert } from 'node:assert';
import { runNode, type RunNode } from '../../../src/core/run/views/runTree';
import { recorded } from '../../support/recordedRuns';

const ZONE = { timeZone: 'Europe/Berlin' };
/** Two minutes after the run started: the clock is the host's, given. */
const twoMinutesAfter = (startedAt: string | undefined) => new Date(Date.parse(startedAt!) + 2 * 60_000);

function allNodes(n: RunNode): RunNode[] {
  return [n, ...n.children.flatMap(allNodes)];
}

/** A sidebar of default width keeps about this much of a description beside its label. */
const FEW_WORDS = 40;

describe('a row of the runs tree reads at the default sidebar width', () => {
  it("a run's row: the ticket as its label, the short time as its description, the outcome in its icon and in words for a screen reader", () => {
    const { state } = recorded('BLOG-1');
    const row = runNode(state, twoMinutesAfter(state.startedAt), state.status, ZONE);
    assert.equal(row.label, 'BLOG-1');
    assert.equal(row.description, '2 min ago · recorded');
    assert.deepEqual([row.icon, row.color], ['pass', 'testing.iconPassed']);
    assert.equal(row.accessibleLabel, 'BLOG-1, passed, 2 min ago, recorded sample');
  });

  it("a run's tooltip has what the row leaves out: the ticket's title, the outcome, the start in full, and the id for a bug report", () => {
    const { state } = recorded('BLOG-3');
    const row = runNode(state, twoMinutesAfter(state.startedAt), state.status, ZONE);
    const lines = (row.tooltip ?? '').split('\n');
    assert.equal(lines[0], 'BLOG-3: Show the publish date in post summaries');
    assert.equal(lines[1], 'waiting for your decision: correction proposed: the ticket is wrong');
    assert.match(lines[2] ?? '', /^Run \d{8}-\d{6}-\w+, started 2026-11-23 11:00:12/);
    assert.equal(
      row.accessibleLabel,
      'BLOG-3, waiting for your decision: correction proposed: the ticket is wrong, 2 min ago, recorded sample',
    );
  });

  it('two runs of one ticket are told apart by their time; a run of another day says its day', () => {
    const { state } = recorded('BLOG-1');
    const now = twoMinutesAfter(state.startedAt);
    const earlier = { ...state, runId: `${state.runId}-0`, startedAt: new Date(Date.parse(state.startedAt!) - 3 * 60_000).toISOString() };
    assert.notEqual(runNode(earlier, now, 'passed', ZONE).description, runNode(state, now, 'passed', ZONE).description);
    const dayBefore = new Date(Date.parse(state.startedAt!) + 24 * 3_600_000);
    assert.equal(runNode(state, dayBefore, 'passed', ZONE).description, 'yesterday, 11:00 · recorded');
  });

  it('every description is a few words; the whole text is in the tooltip, and the screen reader reads the few words', () => {
    for (const name of ['BLOG-1', 'BLOG-3']) {
      const { state } = recorded(name);
      for (const n of allNodes(runNode(state, twoMinutesAfter(state.startedAt), state.status, ZONE))) {
        const d = n.description ?? '';
        assert.ok(d.length <= FEW_WORDS && !d.includes('\n'), `${n.id}: "${d}"`);
        assert.ok(n.accessibleLabel.length <= n.label.length + FEW_WORDS + 80, `${n.id} is read in a breath: "${n.accessibleLabel}"`);
      }
    }
    const { state } = recorded('BLOG-1');
    const nodes = allNodes(runNode(state, twoMinutesAfter(state.startedAt), state.status, ZONE));
    const brief = nodes.find((n) => n.id.endsWith('attempt:2'))!;
    assert.match(brief.description ?? '', /^the Debugger's brief: \S+…$/, 'cut at a word, and says it is cut');
    assert.match(brief.tooltip ?? '', /^the Debugger's brief: parsePaginationParams clamps perPage to 100 before the handler sees it/);
    const claim = nodes.find((n) => n.contextValue === 'diagnosis')!;
    assert.match(claim.tooltip ?? '', /^The handler's guard reads perPage after parsePaginationParams has clamped it to 100.*\n\nBrief: /s);
    const failedCase = nodes.find((n) => n.contextValue === 'case')!;
    assert.equal(failedCase.description, 'Expected values to be strictly equal:');
    assert.match(failedCase.tooltip ?? '', /200 !== 400[\s\S]*\n\s+at /, 'the message in full and the stack, for the mouse');
  });
});

describe("a correction's row after the run was rolled back", () => {
  it('an accepted correction of a rolled-back run is no longer a green pass, and says the rollback undid it', () => {
    const { state } = recorded('BLOG-3');
    const accepted = { ...state, corrections: state.corrections.map((c) => ({ ...c, status: 'accepted' as const, by: 'vscode' })) };
    const row = (s: typeof state) =>
      runNode(s, twoMinutesAfter(s.startedAt), s.status, ZONE).children.find((c) => c.contextValue === 'correction')!;
    assert.deepEqual([row(accepted).icon, row(accepted).color], ['pass', 'testing.iconPassed']);
    const undone = row({ ...accepted, rolledBack: true });
    assert.deepEqual([undone.icon, undone.color], ['discard', 'disabledForeground']);
    assert.equal(undone.description, 'accepted, then rolled back');
    assert.match(undone.accessibleLabel, /, rolled back, accepted, then rolled back$/);
  });
});
