import type { ParserPort } from '../../src/core/ports/checks';
import type { ParseProblem } from '../../src/core/schema/checks';
import { ask } from './questions';
import type { RecordedWorld } from './recordedWorld';

/**
 * A fake of Tree-sitter (stands for src/node/parse/treeSitterParser.ts): syntax problems and the
 * repeat guard's code structure, as the real parser gave them for the same text.
 */
export class RecordedParser implements ParserPort {
  constructor(private readonly world: RecordedWorld) {}

  parse(path: string, content: string): Promise<ParseProblem[]> {
    return Promise.resolve(this.world.answer(ask.parse(path, content)));
  }

  shape(path: string, content: string): Promise<string[]> {
    return Promise.resolve(this.world.answer(ask.shape(path, content)));
  }
}
