import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../core/errors';
import { ScriptedModel, type ScriptStart } from './scriptedModel';
import { ModelScript } from './scriptSchema';

/** Where the scripted provider looks for a ticket's recorded answers: one script for a ticket's JSON and YAML forms. */
export function scriptPathFor(ticketPath: string): string {
  return ticketPath.replace(/\.ticket\.(json|ya?ml)$/, '.script.json');
}

/**
 * Loads a ticket's script, with errors that say which file and what is wrong. `start`: the
 * calls a continued run already made (scriptPosition), so that it reads on from there;
 * `likelyCause`: asked once the recording falls short, for why the run went another way.
 */
export function loadScriptedModel(
  workspaceRoot: string,
  ticketPath: string,
  start?: ScriptStart,
  likelyCause?: () => Promise<string | undefined>,
): ScriptedModel {
  const rel = scriptPathFor(ticketPath);
  const file = path.join(workspaceRoot, rel);
  if (!existsSync(file)) {
    const missing = `the scripted model needs recorded answers in ${rel}, and there is none.`;
    throw new UserInputError(
      `${missing} Record one, or run with --model anthropic.`,
      `${missing} Save a past run's answers there (Ticket Runner: Save Run as Script), or pick another provider in the ticketRunner.model setting.`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserInputError(`${rel} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = ModelScript.safeParse(raw);
  if (!parsed.success)
    throw new UserInputError(
      `${rel} is not a valid script: ${parsed.error.issues.map((i) => `$.${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const dir = path.dirname(file);
  return new ScriptedModel(parsed.data, (from) => readFileSync(path.resolve(dir, from), 'utf8'), rel, start, likelyCause);
}
