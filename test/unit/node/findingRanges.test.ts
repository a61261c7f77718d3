import { strict as assert } from 'node:assert';
import { findingRange, pathSegments } from '../../../src/node/tickets/findingRanges';

describe('where a ticket finding sits in the ticket text', () => {
  const text =
    '{\n  "id": "X-1",\n  "scope": { "write": ["a.ts", "b.ts"] },\n  "refs": [{ "symbol": "Post.x", "file": "src/types.ts" }]\n}';
  const at = (p: string) => {
    const r = findingRange(text, p);
    return text.slice(r.offset, r.offset + r.length);
  };

  it('splits a JSON path into keys and indexes', () => {
    assert.deepEqual(pathSegments('$.testPlan.files[0].path'), ['testPlan', 'files', 0, 'path']);
    assert.deepEqual(pathSegments('$'), []);
  });

  it('is the value at the path; a missing key points at the object that should hold it', () => {
    assert.equal(at('$.scope.write[1]'), '"b.ts"');
    assert.equal(at('$.refs[0]'), '{ "symbol": "Post.x", "file": "src/types.ts" }');
    assert.equal(at('$.acceptance'), '{', 'missing at the top: the opening brace of the ticket');
    assert.equal(at('$.scope.read'), '{', 'missing in scope: the opening brace of scope');
    assert.equal(findingRange(text, '$.scope.read').offset, text.indexOf('{ "write"'));
    assert.deepEqual(findingRange('', '$'), { offset: 0, length: 0 });
  });
});
