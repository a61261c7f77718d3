import * as vscode from 'vscode';
import { CancelledError, ModelTransportError, UserInputError } from '../core/errors';
import type { ModelMessage, ModelPort, ModelRequest, ModelResponse, ToolCall } from '../core/ports/model';
import type { ModelInfo } from '../core/schema/events';
import { planLmRequest, structuredAnswer } from './lmAdapt';
import { raceAbort } from '../node/abort';
import { tokenFor } from './cancellation';

/**
 * A ModelPort over the editor's Language Model API (vscode.lm): a chat model the editor
 * offers, Copilot for example, picked with the ticketRunner.model setting. Structured
 * output goes through a required tool whose input schema is the zod schema's JSON Schema,
 * as with the Anthropic provider; what the API cannot force is asked for in the prompt and
 * the answer taken out of prose (`planLmRequest`, `structuredAnswer`), with a receipt on the
 * call. Cost is recorded as 0: the editor's subscription pays.
 *
 * Rung 1 watches the stream through `onText` and `onActivity` (a tool call or any other part is
 * a start). Every wait on the provider gives way to the call's abort: a provider may ignore its
 * cancellation token, and a stream that never starts must still stop when rung 1 says so.
 */
export class LmModel implements ModelPort {
  readonly info: ModelInfo;

  constructor(private readonly chat: vscode.LanguageModelChat) {
    this.info = { provider: 'vscode-lm', model: `${chat.vendor}/${chat.family} (${chat.id})`, scripted: false };
  }

  async complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse> {
    const started = Date.now();
    if (signal.aborted) throw new CancelledError('cancelled');
    // One controller for the call: the caller's abort and the call's time limit.
    const call = new AbortController();
    const relay = () => call.abort();
    signal.addEventListener('abort', relay, { once: true });
    let timedOut = false;
    const timer = request.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          call.abort();
        }, request.timeoutMs)
      : undefined;
    const cts = tokenFor(call.signal);
    const plan = planLmRequest(request, this.chat);
    for (const adaptation of plan.adaptations) request.onAdapted?.(adaptation);
    const messages = toLmMessages(plan.system, request.messages);
    const tools: vscode.LanguageModelChatTool[] = [
      ...(request.structured
        ? [{ name: request.structured.name, description: request.structured.description, inputSchema: request.structured.jsonSchema }]
        : []),
      ...(request.tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    ];
    // A provider learns of a cancel through its token and may ignore it: every wait gives way to the abort instead.
    const untilAborted = <T>(work: PromiseLike<T>) => raceAbort(Promise.resolve(work), call.signal, () => new CancelledError('cancelled'));
    let iterator: AsyncIterator<unknown> | undefined;
    try {
      const response = await untilAborted(
        this.chat.sendRequest(
          messages,
          {
            justification: 'Ticket Runner runs the Coder and the Debugger of a ticket you started.',
            tools: tools.length ? tools : undefined,
            toolMode: request.structured ? vscode.LanguageModelChatToolMode.Required : undefined,
            ...(plan.modelOptions ? { modelOptions: plan.modelOptions } : {}),
          },
          cts.token,
        ),
      );
      let text = '';
      const calls: ToolCall[] = [];
      iterator = response.stream[Symbol.asyncIterator]();
      for (;;) {
        const next = await untilAborted(iterator.next());
        if (next.done) break;
        const part = next.value;
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          request.onText?.(part.value, text);
          continue;
        }
        if (part instanceof vscode.LanguageModelToolCallPart) calls.push({ id: part.callId, name: part.name, input: part.input });
        // A tool call, data, or a part this API version does not name: the answer has started.
        request.onActivity?.();
      }
      const answer = structuredAnswer(request.structured?.name, text, calls);
      if (answer.adaptation) request.onAdapted?.(answer.adaptation);
      const count = (what: string | vscode.LanguageModelChatMessage) => untilAborted(this.chat.countTokens(what, cts.token)).catch(() => 0);
      const inputTokens = await count(messages.map((m) => partsText(m)).join('\n'));
      const outputTokens = await count(text + calls.map((c) => JSON.stringify(c.input)).join(''));
      if (call.signal.aborted) throw new CancelledError('cancelled');
      return {
        text,
        ...(answer.structured !== undefined ? { structured: answer.structured } : {}),
        toolCalls: answer.toolCalls,
        stopReason: answer.toolCalls.length > 0 ? 'toolUse' : 'end',
        usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        latencyMs: Date.now() - started,
        retries: 0,
      };
    } catch (err) {
      if (timedOut) throw new ModelTransportError(`vscode.lm ${this.info.model}: no complete answer within ${request.timeoutMs} ms`, 0);
      if (signal.aborted) throw new CancelledError('cancelled');
      if (err instanceof vscode.LanguageModelError)
        throw new ModelTransportError(`vscode.lm ${this.info.model}: ${err.message} (${err.code})`, 0);
      throw err;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', relay);
      cts.cancel();
      cts.dispose();
      // A stream left mid-way is closed, so the API stops delivering its parts.
      void Promise.resolve(iterator?.return?.()).catch(() => undefined);
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
      for (const c of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, c.input ?? {}));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    } else {
      out.push(
        vscode.LanguageModelChatMessage.User([
          new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)]),
        ]),
      );
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
        : "No chat model is available through the editor's Language Model API. Install or sign in to a provider (GitHub Copilot, for example), or pick another ticketRunner.model.",
    );
  }
  return new LmModel(chat);
}
