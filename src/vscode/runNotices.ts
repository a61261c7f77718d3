/**
 * What the editor says about one run in a dialog or a notification. Each names the run as
 * `runName` does, by its ticket and time: its id stays in the log, where a bug report reads it.
 */

import { capitalized } from '../core/run/views/words';

/** A run's name at the start of a sentence: `the run from 10:49` has no ticket to begin it. */
export { capitalized };

export function deleteQuestion(name: string): string {
  return `Delete ${name} and its log? Files it wrote stay as they are.`;
}

export function rolledBackNotice(name: string): string {
  return `${capitalized(name)} is rolled back: the files it wrote are as they were before it.`;
}

/** The first words of a failure's notification; showError adds the error and points to the log. */
export function failedNotice(doing: string, name: string): string {
  return `${doing} ${name} failed`;
}

export function nothingToAcceptNotice(name: string): string {
  return `${capitalized(name)} waits for no decision: nothing to accept.`;
}

export function saveScriptTitle(name: string): string {
  return `Ticket Runner: Save ${name} as a script`;
}

export function scriptSavedNotice(name: string, answers: number, where: string): string {
  return `Saved ${answers} model answer(s) of ${name} to ${where}. The scripted model replays it when it is the ticket's .script.json.`;
}

/** A Roll Back… offer pressed after the run was rolled back or deleted elsewhere. */
export function staleRollBackNotice(name: string, deleted: boolean): string {
  return deleted
    ? `${capitalized(name)} was deleted since: there is no run to roll back.`
    : `${capitalized(name)} is already rolled back: the files it wrote are as they were before it.`;
}
