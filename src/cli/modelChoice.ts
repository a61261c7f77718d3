import { UserInputError } from '../core/errors';
import type { RunState } from '../core/run/reducer';
import type { ModelChoice } from '../node/wire';
import type { OptionSpecs } from './command';

/** `--model anthropic|scripted`: the commands that call a model take it. */
export const MODEL_OPTION = { model: { type: 'string' } } as const satisfies OptionSpecs;

/**
 * A real model unless the command says otherwise: the scripted one replays recordings for tests
 * and the demo. A command that continues a run goes on with the kind of model the run started
 * with, so a run of the recorded sample resumes as it began, with no key asked for.
 */
export function modelChoice(flags: { model?: string }, continued?: RunState): ModelChoice {
  const m = flags.model ?? (continued?.model?.scripted ? 'scripted' : 'anthropic');
  if (m !== 'scripted' && m !== 'anthropic') throw new UserInputError(`--model must be anthropic or scripted, got "${m}"`);
  return m;
}
