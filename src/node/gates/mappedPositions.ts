import type { SourceMap, SourceMapping } from 'node:module';

/**
 * Every mapped position of a generated file, once each, through Node's own source-map reader:
 * `findEntry` answers the mapping at or before a position, so a walk over each line's columns
 * meets every mapping of that line exactly at its column.
 */
export function* mappedPositions(map: SourceMap, lineLengths: readonly number[]): Generator<SourceMapping & { originalSource: string }> {
  for (let line = 0; line < lineLengths.length; line++) {
    let lastColumn = -1;
    for (let column = 0; column <= lineLengths[line]!; column++) {
      const entry = map.findEntry(line, column) as Partial<SourceMapping>;
      if (entry.generatedLine !== line || entry.generatedColumn === lastColumn || entry.originalSource === undefined) continue;
      lastColumn = entry.generatedColumn!;
      yield entry as SourceMapping;
    }
  }
}
