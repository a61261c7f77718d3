/** One line of a line diff. */
export interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

/**
 * A small line diff (longest common subsequence), enough for the files of one attempt. The
 * common head and tail are trimmed first, so the quadratic part covers only what changed;
 * past `maxCells` it falls back to "all removed, all added" rather than stall the view.
 */
export function lineDiff(before: string, after: string, maxCells = 4_000_000): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const middle: DiffLine[] = [];
  if (x.length * y.length > maxCells) {
    middle.push(...x.map((text) => ({ op: '-' as const, text })), ...y.map((text) => ({ op: '+' as const, text })));
  } else {
    // lcs[i][j]: the LCS length of x[i..] and y[j..], in one flat array.
    const w = y.length + 1;
    const lcs = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        middle.push({ op: ' ', text: x[i]! });
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) middle.push({ op: '-', text: x[i++]! });
      else middle.push({ op: '+', text: y[j++]! });
    }
    while (i < x.length) middle.push({ op: '-', text: x[i++]! });
    while (j < y.length) middle.push({ op: '+', text: y[j++]! });
  }
  return [...a.slice(0, head).map((text) => ({ op: ' ' as const, text })), ...middle, ...a.slice(a.length - tail).map((text) => ({ op: ' ' as const, text }))];
}

/** Keeps the changed lines and `context` lines around them; a gap becomes one `null`. */
export function withContext(lines: DiffLine[], context = 2): (DiffLine | null)[] {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.op === ' ') return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out: (DiffLine | null)[] = [];
  lines.forEach((l, i) => {
    if (keep[i]) out.push(l);
    else if (out[out.length - 1] !== null) out.push(null);
  });
  if (out[out.length - 1] === null) out.pop();
  return out;
}
