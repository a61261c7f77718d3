import { existsSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../core/errors';
import type { RunState } from '../core/run/reducer';
import { recordScriptText } from '../node/models/scripted/recordScript';
import { FileRunStore } from '../node/store/fileRunStore';

/**
 * Where a run's recorded script goes (`record --out`, `run --record`), checked before any work:
 * a run that cannot write its record at the end must not start, and an existing script (a
 * fixture's own answers, often) is kept unless the operator says --force.
 */
export function recordTarget(ws: string, file: string, force: boolean, option: string): string {
  const out = path.resolve(ws, file);
  const shown = path.relative(ws, out) || out;
  if (!out.endsWith('.json') || out.endsWith('.ticket.json'))
    throw new UserInputError(`${option} ${file}: a script is a JSON file beside the tickets, such as .tickets/<ID>.script.json`);
  const dir = path.dirname(out);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UserInputError(`${option} ${file}: the folder ${dir} does not exist: create it first, or name a file in an existing folder`);
  if (existsSync(out) && statSync(out).isDirectory())
    throw new UserInputError(`${option} ${file} is a folder: name the script's file, such as .tickets/<ID>.script.json`);
  if (existsSync(out) && !force) throw new UserInputError(`${shown} exists: pass --force to replace it, or ${option} another file`);
  return out;
}

/** Writes every model answer of the run as a script; without force, a file made since the check is kept. */
export async function writeRecord(ws: string, state: RunState, out: string, force: boolean): Promise<string> {
  const store = new FileRunStore(ws);
  const text = await recordScriptText(state, (hash) => store.getBlob(state.runId, hash));
  try {
    writeFileSync(out, text, { flag: force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new UserInputError(
        `${out} appeared during the run: pass --force to replace it, or ticket-runner record ${state.runId} --out another file`,
      );
    throw err;
  }
  return `Recorded ${state.modelCalls.length} model answer(s) of run ${state.runId} into ${path.relative(ws, out) || out}; replay with --model scripted.`;
}
