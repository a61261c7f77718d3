import type { RunOutcome, StopReason } from '../schema/events';

/** A typed early stop inside a run (a budget ran out, the run was cancelled); the run loop turns it into `run.finished`. */
export class RunStop extends Error {
  constructor(
    readonly stop: StopReason,
    readonly outcome: RunOutcome,
  ) {
    super(stop.kind);
  }
}
