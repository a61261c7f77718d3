import * as path from 'node:path';
import type { RunState } from '../core/run/runState';
import { runName } from '../core/run/views/runName';
import { capitalized } from './runNotices';
import { scriptPathFor } from '../node/models/scripted/loadScript';

/**
 * Save Run as Script's work, apart from its dialogs: which runs can be saved, where the script
 * goes by default (beside the ticket, where the scripted model reads it). Its text is
 * `recordScriptText`'s, as the CLI's `record` writes it.
 */

/** Why a run cannot be saved as a script, or undefined when it can. `now`: the host's clock, for the run's name. */
export function unsavable(state: RunState, active: boolean, now = new Date()): string | undefined {
  const name = () => capitalized(runName(state, now));
  if (active) return `${name()} is still going: save it as a script once it stops.`;
  if (!state.modelCalls.length) return `${name()} made no model call: there is nothing to replay.`;
  return undefined;
}

/** `.tickets/<ID>.script.json` in the run's workspace folder: the script the scripted model replays for the ticket. */
export function defaultScriptPath(folder: string, state: RunState): string {
  return path.join(folder, scriptPathFor(state.ticketPath));
}
