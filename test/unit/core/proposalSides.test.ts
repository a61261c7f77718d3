import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { decodeLog } from '../../../src/core/run/logCodec';
import { reduceRun } from '../../../src/core/run/reducer';
import { previewProposal, proposalTicketSides } from '../../../src/core/stages/proposals/correctionRequests';
import { proposalTestSides, proposalTestsOf } from '../../../src/core/stages/router/proposalTests';

/** A correction's two sides, as the diff editor and the run view show them, from recorded runs. */
describe('proposal sides', () => {
  const FIXTURES = path.join(__dirname, '..', '..', 'webview', 'fixtures');
  const TICKETS = path.join(__dirname, '..', '..', 'fixtures', 'blog-api');
  const stateOf = (name: string) => {
    const events = decodeLog(readFileSync(path.join(FIXTURES, name, 'events.jsonl'), 'utf8'), name).events;
    return reduceRun(events[0]!.runId, events);
  };

  it("a test-plan proposal changes the rendered test: both sides are test code from the run's own materializer", () => {
    const state = stateOf('BLOG-2');
    const proposal = state.corrections[0]!.request.proposal;
    const files = proposalTestSides(state.manifest!, proposal);
    assert.equal(files.length, 1);
    assert.notEqual(files[0]!.before, files[0]!.after);
    assert.match(files[0]!.after, /assert\./);
    assert.doesNotMatch(files[0]!.after, /"kind":/);
    assert.deepEqual(
      proposalTestsOf(state).map((p) => p.requestId),
      [state.corrections[0]!.request.id],
    );
  });

  it('a proposal that leaves the plan alone renders no test sides, and a ticket edit that is not a ticket renders none either', () => {
    const state = stateOf('BLOG-2');
    assert.deepEqual(proposalTestSides(state.manifest!, { kind: 'scopeAddition', paths: ['src/x.ts'] }), []);
    assert.deepEqual(proposalTestSides(state.manifest!, { kind: 'ticketEdit', ticket: { not: 'a ticket' }, summary: 's' }), []);
    assert.deepEqual(
      proposalTestSides(state.manifest!, { kind: 'testPlan', testPlan: state.manifest!.testPlan }),
      [],
      'the same plan: nothing changes',
    );
  });

  it('the ticket sides are what the preview diffs; a proposal that cannot apply says why', () => {
    const state = stateOf('BLOG-3');
    const { proposal } = state.corrections[0]!.request;
    const text = readFileSync(path.join(TICKETS, state.ticketPath), 'utf8');
    const sides = proposalTicketSides(text, state.ticketPath, proposal);
    assert.ok(!('problem' in sides));
    assert.notEqual(sides.before, sides.after);
    assert.match(sides.after, /createdAt/);
    const preview = previewProposal(text, state.ticketPath, proposal);
    assert.ok('diff' in preview && preview.diff.includes('createdAt'));
    assert.match((proposalTicketSides(null, state.ticketPath, proposal) as { problem: string }).problem, /no longer exists/);
    assert.match((proposalTicketSides('{ not json', state.ticketPath, proposal) as { problem: string }).problem, /no longer valid JSON/);
  });
});
