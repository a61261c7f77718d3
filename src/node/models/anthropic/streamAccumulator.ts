import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { type AnswerDraft, type DraftBlock, draftBlock, mergeUsage, NO_USAGE } from './answerDraft';

type OpenBlock = DraftBlock | { type: 'toolJson'; id: string; name: string; json: string; startInput: unknown };

/**
 * Folds the stream's events into an answer draft, reporting text as it arrives. Tool input
 * is kept as the raw JSON text until its block closes, so input that never parses reaches
 * the caller as that text (its schema rejects it) instead of failing the call here.
 */
export class StreamAccumulator {
  private readonly blocks: OpenBlock[] = [];
  private draftSoFar: AnswerDraft = { blocks: [], stopReason: null, usage: NO_USAGE };
  private text = '';
  private stopped = false;

  constructor(
    private readonly onText?: (delta: string, soFar: string) => void,
    private readonly onActivity?: () => void,
  ) {}

  /** True once message_stop arrived: a stream that ends without it was cut off. */
  get finished(): boolean {
    return this.stopped;
  }

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.draftSoFar = { ...this.draftSoFar, usage: mergeUsage(this.draftSoFar.usage, event.message.usage) };
        break;
      case 'content_block_start':
        this.blocks[event.index] = openBlock(event.content_block);
        break;
      case 'content_block_delta':
        this.addDelta(event.index, event.delta);
        this.onActivity?.();
        break;
      case 'content_block_stop': {
        const block = this.blocks[event.index];
        if (block) this.blocks[event.index] = closeBlock(block);
        break;
      }
      case 'message_delta':
        this.draftSoFar = {
          ...this.draftSoFar,
          stopReason: event.delta.stop_reason ?? this.draftSoFar.stopReason,
          usage: mergeUsage(this.draftSoFar.usage, event.usage),
        };
        break;
      case 'message_stop':
        this.stopped = true;
        break;
    }
  }

  draft(): AnswerDraft {
    // Sparse if an index was skipped; a block still open means the stream was cut, and is kept as it stands.
    const blocks = this.blocks.filter((b) => b !== undefined).map(closeBlock);
    return { ...this.draftSoFar, blocks };
  }

  private addDelta(index: number, delta: Extract<RawMessageStreamEvent, { type: 'content_block_delta' }>['delta']): void {
    const block = this.blocks[index];
    if (!block) return;
    if (delta.type === 'text_delta' && block.type === 'text') {
      block.text += delta.text;
      this.text += delta.text;
      this.onText?.(delta.text, this.text);
    } else if (delta.type === 'input_json_delta' && block.type === 'toolJson') {
      block.json += delta.partial_json;
    } else if (delta.type === 'thinking_delta' && block.type === 'reasoning' && block.block.type === 'thinking') {
      block.block.thinking += delta.thinking;
    } else if (delta.type === 'signature_delta' && block.type === 'reasoning' && block.block.type === 'thinking') {
      block.block.signature = delta.signature;
    }
  }
}

function openBlock(start: Extract<RawMessageStreamEvent, { type: 'content_block_start' }>['content_block']): OpenBlock {
  if (start.type === 'tool_use') return { type: 'toolJson', id: start.id, name: start.name, json: '', startInput: start.input };
  // Server-side blocks are not expected (no server tools are enabled); an empty text keeps indexes aligned.
  return draftBlock(start) ?? { type: 'text', text: '' };
}

function closeBlock(block: OpenBlock): DraftBlock {
  if (block.type !== 'toolJson') return block;
  return { type: 'toolUse', id: block.id, name: block.name, input: parseToolInput(block.json, block.startInput) };
}

function parseToolInput(json: string, startInput: unknown): unknown {
  if (json.trim() === '') return startInput;
  try {
    const input: unknown = JSON.parse(json);
    return input;
  } catch {
    return json;
  }
}
