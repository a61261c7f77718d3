import type { LintPort } from '../../src/core/ports/checks';
import type { LintProblem } from '../../src/core/schema/checks';
import { ask } from './questions';
import type { RecordedWorld } from './recordedWorld';

/** A fake of the linter (stands for src/node/lint/eslintLinter.ts, ESLint in its worker): the findings the real one reported. */
export class RecordedLint implements LintPort {
  constructor(private readonly world: RecordedWorld) {}

  lint(files: string[]): Promise<{ status: 'passed' | 'failed' | 'skipped' | 'error'; problems: LintProblem[]; detail?: string }> {
    return Promise.resolve(this.world.answer(ask.lint(files)));
  }
}
