import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FileLineHits } from '../../core/ports/gates';
import { absolutePath, workspacePath } from '../workspacePaths';

/** What Node writes to NODE_V8_COVERAGE: one file per process, V8's block coverage per script. */
interface V8Range {
  startOffset: number;
  endOffset: number;
  count: number;
}
interface V8Script {
  url: string;
  functions: { ranges: V8Range[] }[];
}
interface SourceMapEntry {
  lineLengths?: number[];
  data?: { sources?: string[]; sourceRoot?: string; mappings?: string } | null;
}
interface V8CoverageFile {
  result?: V8Script[];
  'source-map-cache'?: Record<string, SourceMapEntry>;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** One mapping of a source map: generated line and column to original source, line and column. */
interface Segment {
  genLine: number;
  genCol: number;
  source: number;
  line: number;
}

/** Decodes a source map's base64 VLQ `mappings` (version 3); segments without a source are dropped. */
export function decodeMappings(mappings: string): Segment[] {
  const out: Segment[] = [];
  let source = 0;
  let line = 0;
  mappings.split(';').forEach((group, genLine) => {
    let genCol = 0;
    for (const seg of group.split(',')) {
      if (!seg) continue;
      const values: number[] = [];
      let shift = 0;
      let value = 0;
      for (const ch of seg) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >> 1) : value >> 1);
          value = 0;
          shift = 0;
        }
      }
      genCol += values[0] ?? 0;
      if (values.length < 4) continue;
      source += values[1]!;
      // The original column (values[3]) is not needed: hits are counted per line.
      line += values[2]!;
      out.push({ genLine, genCol, source, line });
    }
  });
  return out;
}

/** The count V8 gives an offset: that of the innermost range around it (ranges nest). */
function countAt(ranges: V8Range[], offset: number): number | undefined {
  let best: V8Range | undefined;
  for (const r of ranges) {
    if (r.startOffset <= offset && offset < r.endOffset && (!best || r.endOffset - r.startOffset < best.endOffset - best.startOffset)) best = r;
  }
  return best?.count;
}

function addHit(hits: Map<number, number>, line: number, count: number): void {
  hits.set(line, Math.max(hits.get(line) ?? 0, count));
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
    const sources = (map.data.sources ?? []).map((s) => {
      try {
        return new URL((map.data?.sourceRoot ?? '') + s, script.url).href;
      } catch {
        return s;
      }
    });
    for (const seg of decodeMappings(map.data.mappings)) {
      if (sources.length > 1 && sources[seg.source] !== script.url) continue;
      const count = countAt(ranges, (starts[seg.genLine] ?? 0) + seg.genCol);
      if (count !== undefined) addHit(hits, seg.line + 1, count);
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

/**
 * Reads every coverage file Node wrote to `dir` and keeps the workspace files in `measure`:
 * per file, hits per line, summed over the processes (node:test runs each test file in its own).
 */
export async function collectV8Coverage(dir: string, root: string, measure: readonly string[]): Promise<FileLineHits[]> {
  const wanted = new Map(measure.map((f) => [pathToFileURL(absolutePath(root, f)).href, f] as const));
  const merged = new Map<string, Map<number, number>>();
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.json')).sort()) {
    const file = JSON.parse(await readFile(join(dir, name), 'utf8')) as V8CoverageFile;
    for (const script of file.result ?? []) {
      const rel = wanted.get(script.url);
      if (!rel) continue;
      const map = file['source-map-cache']?.[script.url];
      const source = map ? undefined : await readFile(fileURLToPath(script.url), 'utf8').catch(() => undefined);
      const lines = merged.get(rel) ?? new Map<number, number>();
      for (const [line, count] of scriptLineHits(script, map, source)) lines.set(line, (lines.get(line) ?? 0) + count);
      merged.set(rel, lines);
    }
  }
  return [...merged].map(([file, lines]) => ({ file: workspacePath(root, absolutePath(root, file)), lines: [...lines].sort((a, b) => a[0] - b[0]) }));
}
