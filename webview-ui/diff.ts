import { diffLines } from 'diff';

/** One line of a line diff. */
export interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

/** A line diff of two versions of a file (jsdiff), one entry per line. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  // A missing newline at the end of the file is not a change to its last line.
  const eol = (t: string) => (t === '' || t.endsWith('\n') ? t : `${t}\n`);
  for (const part of diffLines(eol(before), eol(after))) {
    const op = part.added ? '+' : part.removed ? '-' : ' ';
    const lines = part.value.split('\n');
    lines.pop(); // every part ends with a newline now: the split leaves an empty last entry
    for (const text of lines) out.push({ op, text });
  }
  return out;
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
