import type { RunContext } from '../common/context';
import { measuresAsItJudges } from './judgedCoverage';

/**
 * Tells the test runner to get ready for the ticket's tests while the run does something else:
 * before the first write (beside the language service's first look), and after each write
 * (beside the attempt's other checks), with the code files the tests may load. A hint: a port
 * that breaks its word and throws changes nothing of the run.
 */
export function prepareTests(ctx: RunContext, loads: readonly string[]): void {
  const { deps, manifest } = ctx;
  try {
    const framework = manifest.runner.framework;
    deps.tests.prepare?.({ framework, files: manifest.testFiles, measured: measuresAsItJudges(ctx, framework) }, loads);
  } catch {
    // nothing was prepared; the tests run as they would have
  }
}
