import { UserInputError } from '../../core/errors';
import type { RoutingCase } from '../../core/schema/routingCase';
import { ModelScript, ScriptedModel } from '../models/scripted';

/** The scripted Debugger of one case: the real scripted provider, replaying the answers the case recorded. */
export function scriptedCaseModel(c: RoutingCase): ScriptedModel {
  const parsed = ModelScript.safeParse({ debugger: c.answers });
  if (!parsed.success)
    throw new UserInputError(
      `routing case ${c.id}: its answers are not scripted answers: ${parsed.error.issues
        .slice(0, 3)
        .map(
          (i) =>
            `$.answers${i.path
              .slice(1)
              .map((p) => `[${String(p)}]`)
              .join('')}: ${i.message}`,
        )
        .join('; ')}`,
    );
  return new ScriptedModel(
    parsed.data,
    () => {
      throw new UserInputError(`routing case ${c.id}: an answer reads a file ({ from }); a case keeps its answers inline`);
    },
    `routing case ${c.id}`,
  );
}
