import type { AssertionExpectation, AssertionStyle } from './dialect';
import { negation, sourceText, substringPattern, thunk } from './source';

type ErrorExpectation = Extract<AssertionExpectation, { kind: 'throws' | 'rejects' }>;

/**
 * The message pattern an error must match, if any. A negated expectation means "does not throw
 * at all": the libraries disagree on what "does not throw this message" means (expect passes on
 * another error, node:assert rethrows it), so the message is dropped there to keep one meaning.
 */
function messagePattern(e: ErrorExpectation): string | undefined {
  return e.not || e.message === undefined || e.message === '' ? undefined : substringPattern(e.message);
}

/** node:assert's method for each equality mode, plain and negated. */
const assertEqual = {
  strict: { is: 'strictEqual', not: 'notStrictEqual' },
  deep: { is: 'deepStrictEqual', not: 'notDeepStrictEqual' },
} as const;

/** `{ message: /…/ }` tests the message alone; a bare pattern would also match the error's name. */
function assertMessage(e: ErrorExpectation): string {
  const pattern = messagePattern(e);
  return pattern === undefined ? '' : `, { message: ${pattern} }`;
}

/** node:assert/strict, for the runners that bring no assertions of their own (node:test, mocha). */
export const nodeAssert: AssertionStyle = {
  frameworkNames: [],
  // A namespace import type-checks with or without esModuleInterop, unlike a default import.
  imports: [{ from: 'node:assert/strict', names: [], namespace: 'assert' }],
  controls: [
    ['strictEqual', 'assert.strictEqual(1, 2);'],
    ['notStrictEqual', 'assert.notStrictEqual(1, 1);'],
    ['deepStrictEqual', 'assert.deepStrictEqual({ a: 1 }, { a: 2 });'],
    ['notDeepStrictEqual', 'assert.notDeepStrictEqual({ a: 1 }, { a: 1 });'],
    ['ok', 'assert.ok(0);'],
    ['throws', 'assert.throws(() => 0);'],
    ['doesNotThrow', "assert.doesNotThrow(() => { throw new Error('control'); });"],
  ],
  render(e) {
    switch (e.kind) {
      case 'equal':
        return `assert.${assertEqual[e.mode][e.not ? 'not' : 'is']}(${sourceText(e.actual)}, ${sourceText(e.expected)});`;
      case 'truthy':
        return `assert.ok(${e.not ? negation(e.actual) : sourceText(e.actual)});`;
      case 'throws':
        if (e.not) return `assert.doesNotThrow(${thunk(e.call)});`;
        return `assert.throws(${thunk(e.call)}${assertMessage(e)});`;
      case 'rejects':
        if (e.not) return `await assert.doesNotReject(${sourceText(e.call)});`;
        return `await assert.rejects(${sourceText(e.call)}${assertMessage(e)});`;
    }
  },
};

/** jest's expect, which vitest reproduces. */
export const expectAssertions: AssertionStyle = {
  frameworkNames: ['expect'],
  imports: [],
  controls: [
    ['toBe', 'expect(1).toBe(2);'],
    ['not.toBe', 'expect(1).not.toBe(1);'],
    ['toEqual', 'expect({ a: 1 }).toEqual({ a: 2 });'],
    ['not.toEqual', 'expect({ a: 1 }).not.toEqual({ a: 1 });'],
    ['toBeTruthy', 'expect(0).toBeTruthy();'],
    ['not.toBeTruthy', 'expect(1).not.toBeTruthy();'],
    ['toThrow', 'expect(() => 0).toThrow();'],
    ['not.toThrow', "expect(() => { throw new Error('control'); }).not.toThrow();"],
  ],
  render(e) {
    const not = e.not ? '.not' : '';
    switch (e.kind) {
      case 'equal':
        return `expect(${sourceText(e.actual)})${not}.${e.mode === 'deep' ? 'toEqual' : 'toBe'}(${sourceText(e.expected)});`;
      case 'truthy':
        return `expect(${sourceText(e.actual)})${not}.toBeTruthy();`;
      case 'throws':
        return `expect(${thunk(e.call)})${not}.toThrow(${messagePattern(e) ?? ''});`;
      case 'rejects':
        // `.resolves.not.toThrow()` waits for the promise and fails, with the reason, if it rejects.
        if (e.not) return `await expect(${sourceText(e.call)}).resolves.not.toThrow();`;
        return `await expect(${sourceText(e.call)}).rejects.toThrow(${messagePattern(e) ?? ''});`;
    }
  },
};
