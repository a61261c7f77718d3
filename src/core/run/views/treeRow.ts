/** What every row of the sidebar's trees is, as plain data: the runs view's and the plans view's. */
export interface TreeRow {
  /** Stable across refreshes, so the tree keeps its expansion state. */
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /**
   * What a screen reader says for the row: the label, the status in words, and the description;
   * never the tooltip, which can hold a stack trace.
   */
  accessibleLabel: string;
  /** A codicon id (ThemeIcon), and an optional theme color id for it. */
  icon: string;
  color?: string;
  /** view/item/context `when` clauses match on this: run, run.needsOperator, attempt, plan.paused... */
  contextValue: string;
}

/** A row's status, as its icon shows it. */
export type RowStatus =
  | 'passed'
  | 'failed'
  | 'pending'
  | 'running'
  | 'skipped'
  | 'warning'
  | 'needsOperator'
  | 'cancelled'
  | 'error'
  | 'interrupted'
  | 'rolledBack';

export const STATUS_ICONS: Record<RowStatus, { icon: string; color?: string }> = {
  passed: { icon: 'pass', color: 'testing.iconPassed' },
  failed: { icon: 'error', color: 'testing.iconFailed' },
  error: { icon: 'error', color: 'errorForeground' },
  pending: { icon: 'circle-outline' },
  running: { icon: 'loading~spin' },
  skipped: { icon: 'circle-slash', color: 'disabledForeground' },
  warning: { icon: 'warning', color: 'editorWarning.foreground' },
  needsOperator: { icon: 'question', color: 'editorWarning.foreground' },
  cancelled: { icon: 'debug-stop', color: 'disabledForeground' },
  interrupted: { icon: 'debug-disconnect', color: 'editorWarning.foreground' },
  // Whatever it once reached, its changes are gone: never a green check.
  rolledBack: { icon: 'discard', color: 'disabledForeground' },
};
