import { strict as assert } from 'node:assert';
import { decisionWords } from '../../../src/core/run/views/decisionWords';

/** The run page says what a correction's decision did as things stand now, not as they stood at the decision. */
describe('decisionWords: a correction as it stands after each decision', () => {
  it('waiting: what Accept would do, proposed', () => {
    assert.deepEqual(decisionWords('pending', false), {
      shown: 'pending',
      heading: 'Proposed',
      rewrite: 'Accept rewrites',
      afterRewrite: '',
      changeTitle: 'The change to ',
      afterDecision: '',
    });
  });

  it('accepted: what Accept did, and never "Proposed" again', () => {
    const w = decisionWords('accepted', false);
    assert.deepEqual([w.shown, w.heading, w.rewrite, w.changeTitle], ['accepted', 'Accepted', 'Accepting rewrote', 'The change made to ']);
  });

  it('accepted, then rolled back: no green pass, and the page says the rollback put the ticket back', () => {
    const w = decisionWords('accepted', true);
    assert.equal(w.shown, 'rolledBack', 'the box and its icon are those of a rollback, not a pass');
    assert.equal(w.heading, 'Accepted');
    assert.equal(w.rewrite, 'Accepting rewrote');
    assert.equal(w.afterRewrite, ' The rollback put it back as it was.');
    assert.equal(w.changeTitle, 'The change made, then undone by the rollback, to ');
    assert.equal(w.afterDecision, ', then rolled back');
  });

  it('rejected: what it would have done, still only proposed', () => {
    const w = decisionWords('rejected', true);
    assert.deepEqual([w.shown, w.heading, w.rewrite, w.afterRewrite], ['rejected', 'Proposed', 'Accepting would have rewritten', '']);
  });
});
