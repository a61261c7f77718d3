/** Edit distance between two strings (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The existing file a mistyped path most likely meant: the nearest by edit distance, a file of
 * the same name first; none when even the nearest differs in more than half its characters.
 */
export function closestPath(wanted: string, files: readonly string[]): string | undefined {
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  let best: { file: string; score: number } | undefined;
  for (const file of files) {
    const score = distance(wanted, file) - (base(file) === base(wanted) ? wanted.length : 0);
    if (!best || score < best.score) best = { file, score };
  }
  if (!best || best.file === wanted) return undefined;
  return distance(wanted, best.file) <= Math.max(wanted.length, best.file.length) / 2 ? best.file : undefined;
}
