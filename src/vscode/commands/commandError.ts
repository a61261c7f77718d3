import type * as vscode from 'vscode';
import { editorErrorMessage, errorMessage, UserInputError } from '../../core/errors';
import { showMessage } from '../messages';

/**
 * A command that failed: the whole error in the log; the user's own mistake in its words, anything
 * else with a pointer to the log. `runId`: the run it acted on, named in the log line only.
 */
export function showError(log: vscode.LogOutputChannel, what: string, err: unknown, runId?: string): void {
  log.error(`${what}${runId ? ` (run ${runId})` : ''}: ${errorMessage(err)}`);
  void showMessage(
    'error',
    err instanceof UserInputError ? editorErrorMessage(err) : `${what}: ${errorMessage(err)} (see the Ticket Runner log)`,
  );
}
