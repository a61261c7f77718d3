import type { TestCaseResult } from '../../core/schema/checks';

/**
 * One line of the node:test reporter's output. The reporter runs inside the workspace's test
 * process and the adapter reads its file afterwards; this type is the contract between them.
 * `end` is written last, so a file without it comes from a run that did not finish.
 */
export type NodeTestRecord = ({ type: 'test' } & TestCaseResult) | { type: 'end' };
