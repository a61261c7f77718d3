import { CancelledError } from '../../src/core/errors';
import type { TestRunnerPort, TestRunRequest } from '../../src/core/ports/checks';
import type { TestRunResult } from '../../src/core/schema/checks';
import { ask } from './questions';
import type { RecordedWorld } from './recordedWorld';

/**
 * A fake of the test runner (stands for src/node/testRunners/testRunner.ts, the workspace's
 * node:test, vitest or jest in the jail): it answers the result the real runner gave for the
 * same files on the same candidate. `during` stands for the time a run takes: a test spends
 * the fake clock there, or holds the run until the signal aborts (a hung test run).
 */
export class RecordedTestRunner implements TestRunnerPort {
  readonly requests: TestRunRequest[] = [];

  constructor(
    private readonly world: RecordedWorld,
    private readonly during?: (request: TestRunRequest, signal: AbortSignal) => Promise<void>,
  ) {}

  async run(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult> {
    this.requests.push(request);
    // Asked before the wait: a question never recorded fails the test at once, not after it.
    const result = this.world.answer(ask.testsRun(request));
    if (this.during) await this.during(request, signal);
    if (signal.aborted) throw new CancelledError('test run stopped');
    return result;
  }
}
