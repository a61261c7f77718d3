import * as vscode from 'vscode';
import { CancelledError, ModelTransportError, UserInputError } from '../core/errors';
import type { ModelMessage, ModelPort, ModelRequest, ModelResponse, ToolCall } from '../core/ports/model';
import type { ModelInfo } from '../core/schema/events';

/**
 * A ModelPort over the editor's Language Model API (vscode.lm): a chat model the editor
 * offers, Copilot for example, picked with the ticketRunner.model setting. Structured
 * output goes through a required tool whose input schema is the zod schema's JSON Schema,
 * as with the Anthropic provider. Cost is recorded as 0: the editor's subscription pays.
 */
export class LmModel implements ModelPort {
  readonly info: ModelInfo;

  constructor(private readonly chat: vscode.LanguageModelChat) {
    this.info = { provider: 'vscode-lm', model: `${chat.vendor}/${chat.family} (${chat.id})`, scripted: false };
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const started = Date.now();
    if (signal.aborted) throw new CancelledError('cancelled');
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (request.timeoutMs) timer = setTimeout(() => cts.cancel(), request.timeoutMs);
    const messages = toLmMessages(request.system, request.messages);
    const tools: vscode.LanguageModelChatTool[] = [
      ...(request.structured ? [{ name: request.structured.name, description: request.structured.description, inputSchema: request.structured.jsonSchema }] : []),
      ...(request.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    ];
    try {
      const response = await this.chat.sendRequest(
        messages,
        {
          justification: 'Ticket Runner runs the Coder and the Debugger of a ticket you started.',
          tools: tools.length ? tools : undefined,
          toolMode: request.structured ? vscode.LanguageModelChatToolMode.Required : undefined,
        },
        cts.token,
      );
      let text = '';
      const toolCalls: ToolCall[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          request.onText?.(part.value, text);
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          toolCalls.push({ id: part.callId, name: part.name, input: part.input });
        }
        if (signal.aborted) break;
      }
      if (signal.aborted) throw new CancelledError('cancelled');
      const structuredCall = request.structured ? toolCalls.find((c) => c.name === request.structured!.name) : undefined;
      const inputTokens = await Promise.resolve(this.chat.countTokens(messages.map((m) => partsText(m)).join('\n'), cts.token)).catch(() => 0);
      const outputTokens = await Promise.resolve(this.chat.countTokens(text + (structuredCall ? JSON.stringify(structuredCall.input) : ''), cts.token)).catch(() => 0);
      return {
        text,
        structured: structuredCall?.input,
        toolCalls: toolCalls.filter((c) => c !== structuredCall),
        stopReason: toolCalls.some((c) => c !== structuredCall) ? 'toolUse' : 'end',
        usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        latencyMs: Date.now() - started,
        retries: 0,
      };
    } catch (err) {
      if (signal.aborted) throw new CancelledError('cancelled');
      if (err instanceof vscode.LanguageModelError) throw new ModelTransportError(`vscode.lm ${this.info.model}: ${err.message} (${err.code})`, 0);
      throw err;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }
}

function partsText(m: vscode.LanguageModelChatMessage): string {
  return m.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The API has no system role: the system prompt leads the first user message. */
export function toLmMessages(system: string, messages: ModelMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [vscode.LanguageModelChatMessage.User(system)];
  for (const m of messages) {
    if (m.role === 'user') out.push(vscode.LanguageModelChatMessage.User(m.content));
    else if (m.role === 'assistant') {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
      for (const c of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, (c.input ?? {}) as object));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    } else {
      out.push(vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)])]));
    }
  }
  return out;
}

/** The chat model named by the lmFamily setting, or the first one the editor offers. */
export async function selectLmModel(family: string): Promise<ModelPort> {
  const models = await vscode.lm.selectChatModels(family ? { family } : {});
  const chat = models[0];
  if (!chat) {
    throw new UserInputError(
      family
        ? `No chat model of family "${family}" is available through the editor's Language Model API. Install or sign in to a provider (GitHub Copilot, for example), or change ticketRunner.lmFamily.`
        : 'No chat model is available through the editor\'s Language Model API. Install or sign in to a provider (GitHub Copilot, for example), or pick another ticketRunner.model.',
    );
  }
  return new LmModel(chat);
}
