import { round } from './measure';

/** One row of the printed table: a figure, what was measured, its same-run ratio, and the target. */
export interface Row {
  figure: string;
  measured: string;
  ratio?: number;
  target?: string;
  met?: boolean;
}

export const ms = (n: number): string => `${Math.round(n).toLocaleString('en-US')} ms`;
export const count = (n: number): string => n.toLocaleString('en-US');
export const kib = (bytes: number): string => `${round(bytes / 1024).toLocaleString('en-US')} KiB`;

/** A Markdown table, so docs/bench.md can take it as printed. */
export function markdownTable(rows: readonly Row[]): string {
  const lines = ['| figure | measured | ratio (same run) | target |', '| --- | --- | --- | --- |'];
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : r.ratio.toFixed(3);
    const target = r.target === undefined ? '' : `${r.target}${r.met === undefined ? '' : r.met ? ' ✓' : ' ✗ (missed)'}`;
    lines.push(`| ${r.figure} | ${r.measured} | ${ratio} | ${target} |`);
  }
  return lines.join('\n');
}
