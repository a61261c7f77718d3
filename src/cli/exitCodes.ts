import type { BatchOutcome } from '../core/run/views/batchReport';

/** Exit codes a script can tell apart. */
export const EXIT = { passed: 0, failed: 1, needsOperator: 2, error: 3, cancelled: 130, terminated: 143 } as const;

/** The exit code `run` ends with for a run's outcome; a run that never finished is an error. */
export const exitForStatus = (status: BatchOutcome): number =>
  status === 'running' || status === 'notStarted' ? EXIT.error : EXIT[status];
