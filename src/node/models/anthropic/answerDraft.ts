import type { ContentBlock, Message, MessageDeltaUsage, StopReason, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { ModelResponse, ModelUsage, ReasoningBlock, ToolCall } from '../../../core/ports/model';

/**
 * An answer as the API delivered it, whether as one JSON body or as a stream: the one
 * shape both transports reduce to, so the mapping to a `ModelResponse` exists once.
 */
export interface AnswerDraft {
  blocks: DraftBlock[];
  stopReason: StopReason | null;
  usage: ModelUsage;
}

export type DraftBlock =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; block: ReasoningBlock }
  /** `input` is the raw JSON text when the streamed input did not parse: the caller's schema rejects it. */
  | { type: 'toolUse'; id: string; name: string; input: unknown };

export type AnswerParts = Pick<ModelResponse, 'text' | 'structured' | 'toolCalls' | 'reasoning' | 'stopReason' | 'usage'>;

export const NO_USAGE: ModelUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/** Merges API usage into ours; message_delta repeats fields as null when it has nothing new. */
export function mergeUsage(previous: ModelUsage, usage: Partial<Usage | MessageDeltaUsage> | null | undefined): ModelUsage {
  return {
    inputTokens: usage?.input_tokens ?? previous.inputTokens,
    outputTokens: usage?.output_tokens ?? previous.outputTokens,
    cacheReadTokens: usage?.cache_read_input_tokens ?? previous.cacheReadTokens,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? previous.cacheWriteTokens,
  };
}

export function draftFromMessage(message: Message): AnswerDraft {
  const blocks = message.content.map(draftBlock).filter((b): b is DraftBlock => b !== undefined);
  return { blocks, stopReason: message.stop_reason, usage: mergeUsage(NO_USAGE, message.usage) };
}

export function draftBlock(block: ContentBlock): DraftBlock | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'reasoning', block: { type: 'thinking', thinking: block.thinking, signature: block.signature } };
    case 'redacted_thinking':
      return { type: 'reasoning', block: { type: 'redacted', data: block.data } };
    case 'tool_use':
      return { type: 'toolUse', id: block.id, name: block.name, input: block.input };
    default:
      // Server-side tool blocks: this provider enables no server tools, so none are expected.
      return undefined;
  }
}

const STOP_REASONS: Record<StopReason, ModelResponse['stopReason']> = {
  end_turn: 'end',
  stop_sequence: 'end',
  refusal: 'end',
  pause_turn: 'end',
  max_tokens: 'maxTokens',
  model_context_window_exceeded: 'maxTokens',
  tool_use: 'toolUse',
};

/** The structured tool's call becomes `structured`; every other tool call stays a tool call. */
export function toAnswerParts(draft: AnswerDraft, structuredTool: string | undefined): AnswerParts {
  let text = '';
  let structured: unknown;
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningBlock[] = [];
  for (const block of draft.blocks) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'reasoning') reasoning.push(block.block);
    else if (structuredTool !== undefined && block.name === structuredTool && structured === undefined) structured = block.input;
    else toolCalls.push({ id: block.id, name: block.name, input: block.input });
  }
  const stopReason = draft.stopReason ? STOP_REASONS[draft.stopReason] : 'end';
  return {
    text,
    ...(structured !== undefined ? { structured } : {}),
    toolCalls,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    // A forced structured tool stops with tool_use, but the caller has nothing to run.
    stopReason: stopReason === 'toolUse' && toolCalls.length === 0 ? 'end' : stopReason,
    usage: draft.usage,
  };
}
