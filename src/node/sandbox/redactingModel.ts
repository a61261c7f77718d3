import type { ModelMessage, ModelPort } from '../../core/ports/model';
import type { Redactor } from './redactor';

/**
 * The model port with every prompt scrubbed of secret values before it leaves the machine:
 * the last line of defence behind the allowlisted environment and the scrubbed outputs.
 */
export function redactingModel(model: ModelPort, redactor: Redactor): ModelPort {
  if (redactor.empty) return model;
  const scrub = (m: ModelMessage): ModelMessage => ({ ...m, content: redactor.text(m.content) });
  return {
    info: model.info,
    complete: (request, signal) =>
      model.complete({ ...request, system: redactor.text(request.system), messages: request.messages.map(scrub) }, signal),
  };
}
