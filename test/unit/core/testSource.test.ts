import assert from 'node:assert/strict';
import { readTestSource } from '../../../src/core/stages/common/testSource';

/**
 * A test file's cases read from its text, for an authored test that cannot load before the Coder
 * writes: named as the runners report them, never guessed when a name is computed.
 */

describe('the cases a test file declares, read from its text', () => {
  it('names each case after its suites, as node:test, mocha, vitest and jest nest them', () => {
    const read = readTestSource(`import { describe, it, test } from 'node:test';
import { slug } from '../src/slug'; // it('in a comment', ...)

describe('slug', () => {
  it('lowercases', () => {
    assert.equal(slug('A'), 'a');
  });
  describe("with digits", function () {
    it.only(\`keeps them\`, async () => {
      assert.match(slug('a1'), /it\\('a regex'/);
    });
  });
  it.skip('drops marks: "é" (an \\'accent\\')', () => {});
});
/* test('in a block comment', () => {}) */
test('top level', (t) => {
  t.test('a subtest, judged by its parent', () => {});
});
`);
    assert.deepEqual(read.unreadable, []);
    assert.deepEqual(
      read.cases.map((c) => [c.names, c.skipped, c.line]),
      [
        [['slug', 'lowercases'], false, 5],
        [['slug', 'with digits', 'keeps them'], false, 9],
        [['slug', `drops marks: "é" (an 'accent')`], true, 13],
        [['top level'], false, 16],
      ],
    );
    assert.deepEqual(read.topSuites, ['slug']);
    assert.deepEqual(read.imports, ['node:test', '../src/slug']);
  });

  it('names the line of each case or suite whose name only a run could tell', () => {
    const read = readTestSource(`const name = 'x';
describe(\`slug \${name}\`, () => {
  it(name, () => {});
  it.each([1, 2])('case %i', () => {});
  test('literal', () => {});
});
`);
    assert.deepEqual(
      read.unreadable.map((u) => u.line),
      [2, 3, 4],
    );
    assert.match(read.unreadable[0]!.text, /^describe\(`slug \$\{name\}`/);
    assert.deepEqual(
      read.unreadable.map((u) => u.kind),
      ['suite', 'case', 'case'],
    );
    assert.deepEqual(
      read.cases.map((c) => c.names),
      [['literal']],
    );
  });

  it("leaves the project's own functions of those names alone", () => {
    const read = readTestSource(`function test(s: string) { return /x/.test(s); }
const it = 1;
const check = { it: (s: string) => s, test };
check.it('a method call'), check.test('another');
`);
    assert.deepEqual(read, { cases: [], topSuites: [], unreadable: [], imports: [] });
  });

  it('marks as skipped what the author left skipped: .skip, .todo, an x name, or a skipped suite around it', () => {
    const read = readTestSource(`xdescribe('later', () => { it('inside', () => {}); });
describe.skip('off', () => { test('also inside', () => {}); });
xit('x case', () => {});
it.todo('some day');
test.only('runs', () => {});
`);
    assert.deepEqual(
      read.cases.map((c) => `${c.names.join(' > ')}: ${c.skipped ? 'skipped' : 'runs'}`),
      ['later > inside: skipped', 'off > also inside: skipped', 'x case: skipped', 'some day: skipped', 'runs: runs'],
    );
    assert.deepEqual(read.topSuites, [], 'a skipped suite names no work');
  });
});
