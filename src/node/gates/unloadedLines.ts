import { SourceMap } from 'node:module';
import type * as TS from 'typescript';
import { parseToolJson } from '../../core/schema/toolOutput';
import { SourceMapJson } from '../sourceMapJson';
import { mappedPositions } from './mappedPositions';

let loaded: typeof TS | undefined;
/**
 * TypeScript (a 9 MB module), loaded once, and only when a measure has a file no test loaded.
 * Required, not imported: an `import()` of this CommonJS file first has Node scan all of it for
 * named exports, which took 0.9 s and 1.1 s of CPU here against 0.3 s and 0.4 s for `require`.
 */
const typescript = (): typeof TS =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy, and CommonJS (see above); the build points it at dist/typescript.js.
  (loaded ??= require('typescript') as typeof TS);

/**
 * The executable lines of a file no test loaded, each at 0 hits. TypeScript is transpiled with
 * a source map, and a line is executable when emitted code maps to it, as for a loaded file;
 * JavaScript counts each line with code on it. Imports and re-exports are wiring, not code a
 * test could run: a barrel's new `export { x } from './x'` is not counted.
 */
export async function unloadedLineHits(file: string, text: string): Promise<Map<number, number>> {
  const ts = typescript();
  const hits = new Map<number, number>();
  const wiring = wiringLines(ts, file, text);
  if (/\.[cm]?tsx?$/i.test(file)) {
    const out = ts.transpileModule(text, {
      fileName: file,
      compilerOptions: { sourceMap: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, jsx: ts.JsxEmit.Preserve },
    });
    const payload = parseToolJson(SourceMapJson, out.sourceMapText ?? '{}', `TypeScript's source map of ${file} is not a source map`);
    const emitted = out.outputText.split('\n').map((l) => l.length);
    for (const at of mappedPositions(new SourceMap({ ...payload, sources: [file] }), emitted))
      if (!wiring.has(at.originalLine + 1)) hits.set(at.originalLine + 1, 0);
    return hits;
  }
  text.split('\n').forEach((line, i) => {
    const code = line.trim();
    if (code && !/^(\/\/|\/\*|\*)/.test(code) && !wiring.has(i + 1)) hits.set(i + 1, 0);
  });
  return hits;
}

/** The 1-based lines of a module's top-level imports and `export … from` declarations. */
function wiringLines(ts: typeof TS, file: string, text: string): Set<number> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
  const lines = new Set<number>();
  for (const s of source.statements) {
    const wiring =
      ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s) || (ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined);
    if (!wiring) continue;
    const first = source.getLineAndCharacterOfPosition(s.getStart(source)).line + 1;
    const last = source.getLineAndCharacterOfPosition(s.getEnd()).line + 1;
    for (let l = first; l <= last; l++) lines.add(l);
  }
  return lines;
}
