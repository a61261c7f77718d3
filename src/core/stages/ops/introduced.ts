/**
 * The items of `after` that `before` did not have, as a multiset over `key`: two copies of an
 * error before and three after make one new one. Used to tell the errors an edit brought in
 * from those that were there already; the key leaves positions out, since edits move lines.
 */
export function introduced<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, number>();
  for (const item of before) seen.set(key(item), (seen.get(key(item)) ?? 0) + 1);
  return after.filter((item) => {
    const n = seen.get(key(item)) ?? 0;
    if (n > 0) seen.set(key(item), n - 1);
    return n === 0;
  });
}
