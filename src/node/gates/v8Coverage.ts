import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SourceMap } from 'node:module';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { FileLineHits } from '../../core/ports/gates';
import { parseToolJson } from '../../core/schema/toolOutput';
import { absolutePath, workspacePath } from '../workspacePaths';
import { NOT_NODES } from './coverageProtocol';
import { mappedPositions } from './mappedPositions';
import { unloadedLineHits } from './unloadedLines';

export { NOT_NODES };

/**
 * What Node writes to NODE_V8_COVERAGE: one file per process, V8's block coverage per script.
 * The folder is writable by the code under test: a file is read through this schema, which
 * requires what is read (ranges are checked further by `checkRanges`) and lets the rest by.
 */
const V8Range = z.looseObject({ startOffset: z.number(), endOffset: z.number(), count: z.number() });
type V8Range = z.infer<typeof V8Range>;
const V8Script = z.looseObject({ url: z.string(), functions: z.array(z.looseObject({ ranges: z.array(V8Range) })) });
type V8Script = z.infer<typeof V8Script>;
/** Node's cache of a script's source map: its raw payload, which need not be a whole map. */
const SourceMapEntry = z.looseObject({
  lineLengths: z.array(z.number()).optional(),
  data: z
    .looseObject({ mappings: z.string().optional(), sources: z.array(z.string()).optional(), sourceRoot: z.string().optional() })
    .nullable()
    .optional(),
});
type SourceMapEntry = z.infer<typeof SourceMapEntry>;
const V8CoverageFile = z.looseObject({
  result: z.array(V8Script).optional(),
  'source-map-cache': z.record(z.string(), SourceMapEntry).optional(),
});

/** The count V8 gives an offset: that of the innermost range around it (ranges nest). */
function countAt(ranges: V8Range[], offset: number): number | undefined {
  let best: V8Range | undefined;
  for (const r of ranges) {
    if (r.startOffset <= offset && offset < r.endOffset && (!best || r.endOffset - r.startOffset < best.endOffset - best.startOffset))
      best = r;
  }
  return best?.count;
}

function addHit(hits: Map<number, number>, line: number, count: number): void {
  hits.set(line, Math.max(hits.get(line) ?? 0, count));
}

function resolveSource(root: string, source: string, scriptUrl: string): string {
  try {
    return new URL(root + source, scriptUrl).href;
  } catch {
    return source;
  }
}

/**
 * Hits per original line of one script. With a source map (TypeScript through tsx), every
 * mapped position of a line is looked up and the line counts as run when any of them ran; a
 * line with no mapping is not executable. Without one, the script is its own source, and a
 * line with code on it counts by its first character.
 */
export function scriptLineHits(script: V8Script, map: SourceMapEntry | undefined, source: string | undefined): Map<number, number> {
  const ranges = script.functions.flatMap((f) => f.ranges);
  const hits = new Map<number, number>();
  if (map?.data?.mappings && map.lineLengths) {
    const starts = [0];
    for (const len of map.lineLengths) starts.push(starts[starts.length - 1]! + len + 1);
    const single = (map.data.sources ?? []).length <= 1;
    const sourceMap = new SourceMap({
      version: 3,
      names: [],
      sources: [],
      sourceRoot: '',
      file: '',
      sourcesContent: [],
      ...map.data,
      mappings: map.data.mappings,
    });
    for (const at of mappedPositions(sourceMap, map.lineLengths)) {
      if (!single && resolveSource(map.data.sourceRoot ?? '', at.originalSource, script.url) !== script.url) continue;
      const count = countAt(ranges, (starts[at.generatedLine] ?? 0) + at.generatedColumn);
      if (count !== undefined) addHit(hits, at.originalLine + 1, count);
    }
    return hits;
  }
  if (source === undefined) return hits;
  let offset = 0;
  source.split('\n').forEach((text, i) => {
    const lead = text.length - text.trimStart().length;
    const code = text.trim();
    if (code && !/^(\/\/|\/\*|\*)/.test(code)) {
      const count = countAt(ranges, offset + lead);
      if (count !== undefined) addHit(hits, i + 1, count);
    }
    offset += text.length + 1;
  });
  return hits;
}

/** How Node names the files it writes to NODE_V8_COVERAGE: coverage-<pid>-<ms time>-<thread id>.json. */
const NODE_COVERAGE_FILE = /^coverage-(\d+)-\d+-(\d+)\.json$/;

/**
 * The main-thread files of the folder, each checked to be one Node wrote for a process of the
 * test command. Node writes one file per thread of a process, when it ends (no runner we
 * support calls v8.takeCoverage), so a second file for one pid's main thread was written by
 * code under test: the whole measure is refused. A file for a pid no process of the command
 * recorded (`pids`, from the frozen preload) is not read: a forgery, or a node process the
 * tests started themselves, which has no channel to report on. A worker thread's file (thread id not 0) is
 * not read: no preload records a thread the code under test starts, so nothing tells Node's
 * from a forgery, and code run only in a worker counts as not run.
 */
function mainThreadFiles(names: readonly string[], pids: ReadonlySet<number> | undefined): string[] {
  const byPid = new Map<string, string>();
  for (const name of names) {
    const m = NODE_COVERAGE_FILE.exec(name);
    if (!m) throw new Error(`${name} in the coverage folder is not a file Node writes`);
    if (m[2] !== '0') continue;
    const pid = m[1]!;
    const first = byPid.get(pid);
    if (first) throw new Error(`${NOT_NODES}: ${first} and ${name} both name process ${pid}, for which Node writes one file`);
    // Not a process the runner started: a forgery, or a node process the tests started themselves
    // (which reports no pid). Either way not read: what only it claims counts as not run.
    if (pids && !pids.has(Number(pid))) continue;
    byPid.set(pid, name);
  }
  return [...byPid.values()];
}

/**
 * Reads every coverage file Node wrote to `dir` and keeps the workspace files in `measure`:
 * per file, hits per line, summed over the processes (node:test runs each test file in its own).
 *
 * The folder is in the environment of the code under test, which can write into it. What Node
 * did not name as its own, a second file for one process, and ranges that run past their
 * script make the whole measure unusable (this throws); a file for a process the test command
 * did not have (`pids`: the processes the frozen preload recorded; without it, this is not
 * checked) is left unread: coverage the code wrote about itself must never count as run.
 *
 * What this does not reach: a process of the run that outlives another (a detached
 * grandchild, until the runner's sweep kills it) can replace, rewrite or remove that
 * process's file after it has ended, and a process can keep Node from writing its own file at
 * exit (the folder made unwritable, the name taken first) and leave a forged one in its place
 * (the folder's mode is checked, a name taken by a folder fails the read). In the OS sandbox
 * the folder is writable too: the sandbox does not stop this. Nor can any measure tell code a
 * test ran from code that calls itself as it loads: V8 records what ran, not why.
 *
 * A measured file no process loaded gets every executable line at 0 (`unloadedLineHits`): its
 * changed lines ran in no test, and count so. A types-only module has none, and stays absent.
 * A measured file's text comes from `texts` when given (as the tests ran it), else from disk.
 */
export async function collectV8Coverage(
  dir: string,
  root: string,
  measure: readonly string[],
  pids?: ReadonlySet<number>,
  texts?: ReadonlyMap<string, string | null>,
): Promise<{ files: FileLineHits[]; unloaded: string[] }> {
  const wanted = new Map(measure.map((f) => [pathToFileURL(absolutePath(root, f)).href, f] as const));
  // The measured files as the tests ran them, when the caller read them then (the reading may go
  // on while later commands run, and code under test must not be able to change what is read).
  const textOf = async (rel: string): Promise<string | undefined> =>
    texts ? (texts.get(rel) ?? undefined) : readFile(absolutePath(root, rel), 'utf8').catch(() => undefined);
  const merged = new Map<string, Map<number, number>>();
  for (const name of mainThreadFiles((await readdir(dir)).sort(), pids)) {
    const file = parseToolJson(
      V8CoverageFile,
      await readFile(join(dir, name), 'utf8'),
      `${name} in the coverage folder is not V8 coverage as Node writes it`,
    );
    for (const script of file.result ?? []) {
      const rel = wanted.get(script.url);
      if (!rel) continue;
      const map = file['source-map-cache']?.[script.url];
      const source = map ? undefined : await textOf(rel);
      checkRanges(script, map, source);
      const lines = merged.get(rel) ?? new Map<number, number>();
      for (const [line, count] of scriptLineHits(script, map, source)) lines.set(line, (lines.get(line) ?? 0) + count);
      merged.set(rel, lines);
    }
  }
  const unloaded: string[] = [];
  for (const rel of wanted.values()) {
    if (merged.has(rel)) continue;
    const text = await textOf(rel);
    const lines = text === undefined ? new Map<number, number>() : await unloadedLineHits(rel, text);
    if (!lines.size) continue;
    merged.set(rel, lines);
    unloaded.push(rel);
  }
  const asReported = (file: string) => workspacePath(root, absolutePath(root, file));
  const files = [...merged].map(([file, lines]) => ({ file: asReported(file), lines: [...lines].sort((a, b) => a[0] - b[0]) }));
  return { files, unloaded: unloaded.map(asReported) };
}

/** V8 reports offsets inside its script: one past the end is a report nobody's V8 wrote. */
function checkRanges(script: V8Script, map: SourceMapEntry | undefined, source: string | undefined): void {
  const length = map?.lineLengths ? map.lineLengths.reduce((n, l) => n + l + 1, 0) : source?.length;
  if (length === undefined) return;
  for (const f of script.functions) {
    for (const r of f.ranges) {
      if (!(r.startOffset >= 0 && r.startOffset <= r.endOffset && r.endOffset <= length + 1 && Number.isInteger(r.count) && r.count >= 0)) {
        throw new Error(
          `the coverage of ${script.url} has a range (${r.startOffset}-${r.endOffset}) outside its script of ${length} characters`,
        );
      }
    }
  }
}
