import * as assert from 'node:assert/strict';
import { runInThisContext } from 'node:vm';
import { renderTestFile } from '../../../src/core/stages/materializer';
import { indent, negation, quote, statement, substringPattern, thunk } from '../../../src/core/stages/materializer/source';
import type { TestFile } from '../../../src/core/schema/testPlan';

/** Evaluates a literal the materializer wrote, as the test runner would. */
function evaluate(literal: string): unknown {
  return runInThisContext(`(${literal})`);
}

const AWKWARD = [
  'plain',
  "it's",
  'back\\slash',
  'a/b',
  '(x) [y] {z} a|b ^$ .*+?',
  'line\nbreak\r\nand\ttab',
  'separator\u2028here',
  'control\u0001char',
  'emoji 🎟 and accents éà',
  'lone \ud800 surrogate',
];

describe('materializer: literals', () => {
  it('quotes a string to exactly its value', () => {
    for (const text of AWKWARD) {
      const literal = quote(text);
      assert.doesNotMatch(literal, /[\n\r\u2028\u2029]/);
      assert.equal(evaluate(literal), text);
    }
  });

  it('turns a message into a pattern that matches it as a plain substring', () => {
    for (const text of AWKWARD) {
      const pattern = evaluate(substringPattern(text));
      assert.ok(pattern instanceof RegExp);
      assert.ok(pattern.test(`before ${text} after`), text);
    }
    const dot = evaluate(substringPattern('a.c'));
    assert.ok(dot instanceof RegExp && !dot.test('abc'), 'a regex character stays literal');
  });
});

describe('materializer: source layout', () => {
  it('closes statements with a semicolon, except after a block', () => {
    assert.equal(statement('let x = 1'), 'let x = 1;');
    assert.equal(statement('  let x = 1;  '), 'let x = 1;');
    assert.equal(statement('function f() {\r\n  return 1;\r\n}'), 'function f() {\n  return 1;\n}');
  });

  it('indents every line, but leaves the later lines of a template literal as written', () => {
    assert.equal(indent('const o = {\n  a: 1,\n};', 2), '    const o = {\n      a: 1,\n    };');
    assert.equal(indent('const s = `a\nb`;', 2), '    const s = `a\nb`;');
  });

  it('keeps an object literal an expression inside an arrow function, and negates with parentheses when needed', () => {
    assert.equal(thunk('{ a: 1 }.a.toFixed(-1)'), '() => ({ a: 1 }.a.toFixed(-1))');
    assert.equal(thunk(' parse("x") '), '() => parse("x")');
    assert.equal(negation('cart.isEmpty'), '!cart.isEmpty');
    assert.equal(negation('a || b'), '!(a || b)');
  });

  it('makes a case async when it awaits, even if the plan did not say so', () => {
    const file: TestFile = {
      path: 't.test.ts',
      suite: 's',
      imports: [],
      declarations: [],
      cases: [
        { name: 'rejects', async: false, arrange: [], expect: [{ kind: 'rejects', call: 'load()', not: false }] },
        { name: 'awaits', async: false, arrange: ['const x = await load()'], expect: [{ kind: 'truthy', actual: 'x', not: false }] },
        { name: 'plain', async: false, arrange: [], expect: [{ kind: 'truthy', actual: 'x', not: false }] },
      ],
    };
    const content = renderTestFile(file, 'node:test', { language: 'ts', moduleKind: 'esm' });
    assert.match(content, /it\('rejects', async \(\) => \{/);
    assert.match(content, /it\('awaits', async \(\) => \{/);
    assert.match(content, /it\('plain', \(\) => \{/);
  });
});
