import type {
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  Tool,
  ToolChoice,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages';
import type { ModelMessage, ModelRequest, ReasoningBlock, ToolSpec } from '../../../core/ports/model';
import { callTheToolInstruction } from '../../../core/recovery/proseSuppression';

export interface RequestSettings {
  model: string;
  /** The answer's allowance when the request names none. */
  defaultMaxTokens: number;
  thinkingBudgetTokens: number;
  cacheSystemPrompt: boolean;
}

/**
 * With thinking on, the API accepts only `auto` tool choice, so the structured tool cannot
 * be forced; this line asks for it instead, and the caller's schema check catches a miss.
 */
const CALL_THE_TOOL = (name: string) => `\n\n${callTheToolInstruction(name)}`;

/** The Messages API body for a request, without `stream` (the provider decides that). */
export function toAnthropicRequest(request: ModelRequest, settings: RequestSettings): MessageCreateParamsBase {
  const answerTokens = request.maxTokens ?? settings.defaultMaxTokens;
  const tools: ToolUnion[] = (request.tools ?? []).map(toTool);
  let toolChoice: ToolChoice | undefined;
  let system = request.system;
  if (request.structured) {
    const { name, description, jsonSchema } = request.structured;
    tools.push({ name, description, input_schema: asInputSchema(jsonSchema) });
    if (request.thinking) {
      toolChoice = { type: 'auto' };
      system += CALL_THE_TOOL(name);
    } else {
      toolChoice = { type: 'tool', name };
    }
  }
  return {
    model: settings.model,
    // Thinking tokens count against max_tokens: add the budget so the answer keeps its own allowance.
    max_tokens: request.thinking ? answerTokens + settings.thinkingBudgetTokens : answerTokens,
    // The API refuses an empty text block, so an empty system prompt is left out.
    ...(system
      ? { system: [{ type: 'text', text: system, ...(settings.cacheSystemPrompt ? { cache_control: { type: 'ephemeral' } } : {}) }] }
      : {}),
    messages: toMessageParams(request.messages),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(request.thinking ? { thinking: { type: 'enabled', budget_tokens: settings.thinkingBudgetTokens } } : {}),
  };
}

/**
 * Claude's own text editor tool, the version the Claude 4 models are trained on: the API
 * knows its schema, so only its type and its fixed name are sent.
 */
export const TEXT_EDITOR_TOOL = { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' } as const;

function toTool(t: ToolSpec): ToolUnion {
  if (t.kind === 'textEditor' && t.name === TEXT_EDITOR_TOOL.name) return { ...TEXT_EDITOR_TOOL };
  return { name: t.name, description: t.description, input_schema: asInputSchema(t.inputSchema) };
}

function asInputSchema(schema: Record<string, unknown>): Tool.InputSchema {
  return { ...schema, type: 'object' };
}

/**
 * The API wants strictly alternating turns and every tool result of a turn in the next
 * user message, so consecutive user-side messages (tool results, then text) merge.
 */
export function toMessageParams(messages: readonly ModelMessage[]): MessageParam[] {
  const params: MessageParam[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    // A breakpoint sits on the message's last block: the API caches everything up to it.
    const last = blocks.at(-1);
    if (message.role !== 'assistant' && message.cache && last && (last.type === 'text' || last.type === 'tool_result'))
      last.cache_control = { type: 'ephemeral' };
    const previous = params.at(-1);
    if (previous && previous.role === role && Array.isArray(previous.content)) {
      previous.content.push(...blocks);
    } else {
      params.push({ role, content: blocks });
    }
  }
  return params;
}

function toBlocks(message: ModelMessage): ContentBlockParam[] {
  switch (message.role) {
    case 'user':
      return [{ type: 'text', text: message.content }];
    case 'tool':
      return [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
          ...(message.isError ? { is_error: true } : {}),
        },
      ];
    case 'assistant':
      return [
        // Reasoning first: the API checks that a thinking turn still starts with its thinking.
        ...(message.reasoning ?? []).map(toReasoningParam),
        ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
        ...(message.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.input })),
      ];
  }
}

function toReasoningParam(block: ReasoningBlock): ContentBlockParam {
  return block.type === 'thinking'
    ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
    : { type: 'redacted_thinking', data: block.data };
}
