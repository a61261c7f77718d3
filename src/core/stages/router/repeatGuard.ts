import type { ChangeShape } from '../common/routing';

/**
 * The repeat guard's measure: how alike two attempts' changes are in code structure. Each
 * file is cut into statements with identifiers and literals abstracted (ParserPort.shape,
 * Tree-sitter); an attempt's change is the statements it has that the run's baseline has not;
 * two changes are compared token by token. A renamed variable, a reformatted line or a new
 * comment changes nothing; a different condition, call or control flow does.
 */

/** Two changes at least this alike (Dice over their longest common token run) are one approach. */
export const REPEAT_SIMILARITY = 0.9;

/** Past this many tokens a change is compared on its first ones: the guard stays cheap on a huge answer. */
const MAX_TOKENS = 4000;

/**
 * The statements of `after` that `before` (the file before the run; null: the run created it)
 * does not have, as tokens, after a `@file` marker. An empty array: the file adds nothing.
 */
export function changedStatements(path: string, before: readonly string[] | null, after: readonly string[]): ChangeShape {
  const old = new Set(before ?? []);
  const added = after.filter((u) => !old.has(u));
  return added.length ? [`@file ${path}`, ...added.flatMap((u) => u.split(' '))] : [];
}

/** 2·LCS ÷ (|a| + |b|): 1 for the same tokens in the same order, 0 for nothing in common. */
export function similarity(a: readonly string[], b: readonly string[]): number {
  const x = a.slice(0, MAX_TOKENS);
  const y = b.slice(0, MAX_TOKENS);
  if (x.length === 0 && y.length === 0) return 1;
  if (x.length === 0 || y.length === 0) return 0;
  let prev = new Uint16Array(y.length + 1);
  let row = new Uint16Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) row[j] = x[i - 1] === y[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    [prev, row] = [row, prev];
  }
  return (2 * prev[y.length]!) / (x.length + y.length);
}

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue debugger declare default delete do else enum export extends false finally for from ' +
    'function get if implements import in instanceof interface is keyof let new null of private protected public readonly return satisfies set static ' +
    'super switch this throw true try type typeof undefined var void while yield'
  ).split(' '),
);

/**
 * The same shape without a parser (a workspace wired without Tree-sitter): one entry per line,
 * comments out, identifiers `$id` and literals `$lit` by a tokenizer. Coarser (a line split in
 * two differs), never stricter.
 */
export function textShape(content: string): string[] {
  const code = content.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const token = /`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|\d[\w.]*|[A-Za-z_$][\w$]*|\S/g;
  return code
    .split('\n')
    .map((line) =>
      [...line.matchAll(token)]
        .map(([t]) => (/^[`'"\d]/.test(t) ? '$lit' : /^[A-Za-z_$]/.test(t) && !KEYWORDS.has(t) ? '$id' : t))
        .join(' '),
    )
    .filter((u) => u !== '');
}
