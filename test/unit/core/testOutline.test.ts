import { strict as assert } from 'node:assert';
import { outlineTest } from '../../../src/core/stages/authoring/testOutline';

describe("a test file's outline, read from its text alone", () => {
  it('finds suites and cases where a regular expression, a comment or a method named test could fool a scan', () => {
    const outline = outlineTest(`const { slug } = require("../src/slug.js");
/* it('in a block comment', () => {}); */
suite('slug', () => {
  test('drops quotes', () => assert.ok(/['(]/.test("a'(") && (4 / 2) / 1 === 2));
  context.skip('later', () => {
    it('keeps the case of an acronym', () => {});
  });
  it.only('trims', () => {});
  it.skip('not yet', () => {});
  it.todo('some day');
  describe.each([1])('computed %s', () => {});
});
import('./lazy');
`);
    assert.deepEqual(outline.topSuites, ['slug']);
    // A skipped suite or case is no work to do: no criterion.
    assert.deepEqual(outline.cases, [
      { name: 'drops quotes', suites: ['slug'] },
      { name: 'trims', suites: ['slug'] },
    ]);
    assert.equal(outline.unnamedCases, 0);
    assert.deepEqual(outline.imports, ['../src/slug.js', './lazy']);
  });

  it('counts a case whose name is computed at run time, which no criterion can name', () => {
    const outline = outlineTest('for (const n of [1, 2]) it(`works for ${n}`, () => {});\ntest(name, () => {});\n');
    assert.deepEqual(outline.cases, []);
    assert.equal(outline.unnamedCases, 2);
  });
});
