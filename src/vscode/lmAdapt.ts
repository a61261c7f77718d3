import type { ModelRequest, ToolCall } from '../core/ports/model';
import { CODE_WITHOUT_REASONING_INSTRUCTION, extractJsonAnswer, jsonOnlyInstruction } from '../core/recovery/proseSuppression';
import type { ModelAdaptation } from '../core/schema/events';
import { type LmModelIdentity, thinkingFor } from './lmThinking';

/** A request as vscode.lm can carry it: the system text with what was added, the model options, and the receipts. */
export interface LmRequestPlan {
  system: string;
  modelOptions?: Record<string, unknown>;
  adaptations: ModelAdaptation[];
}

/**
 * What the Language Model API lacks, made up for: it has no prefill and a provider may ignore
 * `toolMode`, so a structured call asks for the tool (or a bare JSON object) in its prompt; it has
 * no thinking switch, so thinking goes to the model's closest option (`thinkingFor`), and a Coder
 * told to think is asked to keep its reasoning out of the answer, since 1.100's stream has no part
 * for reasoning and a model would otherwise think aloud until rung 1 stops it as prose.
 */
export function planLmRequest(
  request: Pick<ModelRequest, 'role' | 'system' | 'thinking' | 'structured'>,
  model: LmModelIdentity,
): LmRequestPlan {
  const adaptations: ModelAdaptation[] = [];
  let modelOptions: Record<string, unknown> | undefined;
  const instructions: string[] = [];
  if (request.thinking) {
    const thinking = thinkingFor(model);
    adaptations.push(thinking);
    if (thinking.kind === 'thinkingMapped') modelOptions = thinking.modelOptions;
  }
  if (request.structured) instructions.push(jsonOnlyInstruction(request.structured.name));
  else if (request.thinking && request.role === 'coder') instructions.push(CODE_WITHOUT_REASONING_INSTRUCTION);
  for (const instruction of instructions) adaptations.push({ kind: 'proseSuppressed', instruction });
  const system = [request.system, ...instructions].filter((s) => s !== '').join('\n\n');
  return { system, ...(modelOptions ? { modelOptions } : {}), adaptations };
}

/**
 * The structured answer of a call: the structured tool's input when the model called it, else
 * the one JSON object its text holds (with the receipt of either outcome). Other tool calls stay
 * tool calls.
 */
export function structuredAnswer(
  tool: string | undefined,
  text: string,
  calls: ToolCall[],
): { structured?: unknown; toolCalls: ToolCall[]; adaptation?: ModelAdaptation } {
  if (tool === undefined) return { toolCalls: calls };
  const call = calls.find((c) => c.name === tool);
  if (call) return { structured: call.input, toolCalls: calls.filter((c) => c !== call) };
  const extraction = extractJsonAnswer(text);
  return { ...(extraction.value ? { structured: extraction.value } : {}), toolCalls: calls, adaptation: extraction.adaptation };
}
