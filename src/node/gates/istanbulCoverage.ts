import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { FileLineHits } from '../../core/ports/gates';
import { parseToolJson } from '../../core/schema/toolOutput';
import { realPathOr, workspacePath } from '../workspacePaths';

const Position = z.object({ line: z.number().int().min(1), column: z.number().int().nullable().optional() }).loose();
const Range = z.object({ start: Position, end: Position }).loose();
const Count = z.number().int().min(0);

/**
 * One file of istanbul's `coverage-final.json`, the report vitest (v8 or istanbul provider) and
 * jest (babel or v8) both write: statements by id with their ranges and hit counts. Functions
 * and branches are there too; a line's hits are its statements'.
 */
const FileCoverage = z
  .object({
    path: z.string().min(1),
    statementMap: z.record(z.string(), Range),
    s: z.record(z.string(), Count),
  })
  .loose();
const CoverageReport = z.record(z.string(), FileCoverage);

/**
 * Hits per line as istanbul itself counts them (FileCoverage.getLineCoverage): a line is
 * executable when a statement starts on it, and its hits are the most any of those got.
 */
function lineHits(file: z.infer<typeof FileCoverage>): Map<number, number> {
  const hits = new Map<number, number>();
  for (const [id, range] of Object.entries(file.statementMap)) {
    const count = file.s[id];
    if (count === undefined) throw new Error(`statement ${id} of ${file.path} has no count`);
    const line = range.start.line;
    hits.set(line, Math.max(hits.get(line) ?? 0, count));
  }
  return hits;
}

/**
 * Reads a `coverage-final.json` and keeps the workspace files in `measure`. The report comes
 * out of a process that ran the code under judgement, so it is checked before it is believed:
 * a report that does not parse, gives a statement no count, or names a line past the end of
 * the file as it is now (a report of some other version of it) throws, and the gate says it
 * could not measure. Paths are compared through realpath: the runner may name the real path of
 * a symlinked workspace.
 */
export async function readIstanbulCoverage(text: string, root: string, measure: readonly string[]): Promise<FileLineHits[]> {
  const report = parseToolJson(CoverageReport, text, "the coverage report is not istanbul's coverage-final.json");
  const realRoot = realPathOr(root);
  const wanted = new Set(measure);
  const out: FileLineHits[] = [];
  for (const file of Object.values(report)) {
    const rel = [workspacePath(root, file.path), workspacePath(realRoot, realPathOr(file.path))].find((p) => wanted.has(p));
    if (!rel) continue;
    const hits = lineHits(file);
    const lines = ((await readFile(workspacePathOn(root, rel), 'utf8').catch(() => null)) ?? '').split('\n').length;
    const past = [...hits.keys()].find((l) => l > lines);
    if (past !== undefined)
      throw new Error(`the coverage report names line ${past} of ${rel}, which has ${lines} lines: it is not a report of this code`);
    wanted.delete(rel);
    out.push({ file: rel, lines: [...hits].sort((a, b) => a[0] - b[0]) });
  }
  return out;
}

const workspacePathOn = (root: string, rel: string): string => `${root.replace(/[\\/]$/, '')}/${rel}`;
