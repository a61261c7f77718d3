import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseToolJson } from '../../core/schema/toolOutput';
import { SourceMapJson } from '../sourceMapJson';

/** A stack frame's position: `/abs/dist/x.js:12:5` or `file:///abs/dist/x.js:12:5`. */
const FRAME = /((?:file:\/\/)?\/[^\s():]+\.[cm]?js):(\d+):(\d+)/g;
const MAP_COMMENT = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/;

/**
 * Rewrites the frames of a stack that point into compiled JavaScript with a source map to the
 * source positions (a project whose tests run its tsc output, with no --enable-source-maps):
 * the Debugger and the report then quote the TypeScript line the Coder wrote. Frames with no
 * map, or a map with no entry for them, stay as they are.
 */
export class StackMapper {
  private readonly maps = new Map<string, { map: SourceMap; dir: string } | null>();

  map(stack: string): string {
    return stack.replace(FRAME, (whole, file: string, line: string, column: string) => {
      const path = file.startsWith('file://') ? fileURLToPath(file) : file;
      const found = this.mapOf(path);
      if (!found) return whole;
      // findEntry is zero-based on both sides; the stack is one-based.
      const entry = found.map.findEntry(Number(line) - 1, Number(column) - 1) as {
        originalSource?: string;
        originalLine?: number;
        originalColumn?: number;
      };
      if (!entry.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined) return whole;
      const source = entry.originalSource.startsWith('file://')
        ? fileURLToPath(entry.originalSource)
        : resolve(found.dir, entry.originalSource);
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
  }

  private mapOf(file: string): { map: SourceMap; dir: string } | null {
    if (!this.maps.has(file)) this.maps.set(file, readMap(file));
    return this.maps.get(file)!;
  }
}

function readMap(file: string): { map: SourceMap; dir: string } | null {
  try {
    if (!existsSync(file)) return null;
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const url = MAP_COMMENT.exec(lines[lines.length - 1] ?? '')?.[1];
    if (!url) return null;
    const inline = /^data:application\/json(?:;charset=[^;,]+)?;base64,(.*)$/.exec(url);
    const mapFile = inline ? file : resolve(dirname(file), decodeURIComponent(url));
    const text = inline ? Buffer.from(inline[1]!, 'base64').toString('utf8') : readFileSync(mapFile, 'utf8');
    // Throws on a map that does not fit, which is then no map (below).
    const payload = parseToolJson(SourceMapJson, text, `${mapFile} is not a source map`);
    return { map: new SourceMap(payload), dir: resolve(dirname(mapFile), payload.sourceRoot) };
  } catch {
    // An unreadable map is no map: the compiled position is still true, only less helpful.
    return null;
  }
}
