import { strict as assert } from 'node:assert';
import { nextTicketId, ticketIdProblem } from '../../../src/core/ticket/ticketIds';

describe('New Ticket: the id it proposes and the ids it refuses', () => {
  it("proposes the number after the highest of the tickets' most common prefix", () => {
    assert.equal(nextTicketId(['BLOG-1', 'BLOG-2', 'BLOG-13', 'BLOG-9']), 'BLOG-14');
    // Numbers, not text: BLOG-9 is below BLOG-13.
    assert.equal(nextTicketId(['BLOG-9', 'BLOG-13']), 'BLOG-14');
    // The prefix most tickets share, not another one's higher number.
    assert.equal(nextTicketId(['BLOG-1', 'BLOG-2', 'OPS-40', 'notes']), 'BLOG-3');
    assert.equal(nextTicketId(['SHOP-1']), 'SHOP-2');
    // Leading zeros are kept as wide.
    assert.equal(nextTicketId(['API-007', 'API-008']), 'API-009');
  });

  it('never proposes an id that exists, in any case', () => {
    assert.equal(nextTicketId(['BLOG-1', 'BLOG-2', 'blog-3']), 'BLOG-4');
  });

  it('proposes nothing when no ticket is numbered', () => {
    assert.equal(nextTicketId([]), undefined);
    assert.equal(nextTicketId(['readme-draft', 'x']), undefined);
  });

  it('refuses an id that exists at once, with a free one, and a malformed one', () => {
    const existing = ['BLOG-1', 'BLOG-13'];
    assert.equal(ticketIdProblem('BLOG-14', existing), undefined);
    assert.equal(ticketIdProblem('BLOG-13', existing), 'A ticket BLOG-13 already exists: pick another id (BLOG-14 is free)');
    assert.equal(ticketIdProblem('blog-1', existing), 'A ticket BLOG-1 already exists: pick another id (BLOG-14 is free)');
    assert.match(
      ticketIdProblem('-x', existing) ?? '',
      /^Letters, digits, dot, dash or underscore, starting with a letter or digit \(for example BLOG-14\)$/,
    );
    assert.match(ticketIdProblem('', []) ?? '', /for example PROJ-1\)$/);
  });
});
