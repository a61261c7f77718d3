import type { RunState } from '../runState';

type CorrectionStatus = RunState['corrections'][number]['status'];

/**
 * What the run page says of a correction request as things stand now: what Accept would do while
 * it waits, what it did once accepted, and that a rollback since put the ticket back (Accept's
 * write is one of the run's, so a rollback restores it). `shown` picks the box's colour and icon.
 */
export function decisionWords(
  status: CorrectionStatus,
  rolledBack: boolean,
): {
  shown: CorrectionStatus | 'rolledBack';
  heading: string;
  rewrite: string;
  afterRewrite: string;
  changeTitle: string;
  afterDecision: string;
} {
  const undone = status === 'accepted' && rolledBack;
  return {
    shown: undone ? 'rolledBack' : status,
    heading: status === 'accepted' ? 'Accepted' : 'Proposed',
    rewrite: status === 'pending' ? 'Accept rewrites' : status === 'accepted' ? 'Accepting rewrote' : 'Accepting would have rewritten',
    afterRewrite: undone ? ' The rollback put it back as it was.' : '',
    changeTitle:
      status === 'pending'
        ? 'The change to '
        : undone
          ? 'The change made, then undone by the rollback, to '
          : status === 'accepted'
            ? 'The change made to '
            : 'The change it would have made to ',
    afterDecision: undone ? ', then rolled back' : '',
  };
}
