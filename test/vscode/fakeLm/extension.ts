// A test extension: scripted chat models offered through the Language Model API, so that the
// vscode.lm provider (src/vscode/lmModel.ts) runs against the editor's real API in code-server.
// VS Code 1.100 offers chat providers only as the proposed API `chatProvider`
// (`lm.registerChatModelProvider`; the final `registerLanguageModelChatProvider` came in 1.104),
// so this extension declares the proposal and a `languageModels` vendor, and the workbench is
// opened with proposed API enabled.
import * as vscode from 'vscode';

export type FakeRole = 'coder' | 'debugger' | 'reviewer' | 'testReviewer';

/** One scripted answer. */
export type FakeAnswer =
  /** Sends nothing, and ignores its cancellation token: only the caller's own abort ends the wait. */
  | { kind: 'neverStart' }
  /** Streams the text in chunks, a few milliseconds apart. */
  | { kind: 'text'; text: string; chunkChars?: number }
  /** A tool call, after optional text. */
  | { kind: 'tool'; name: string; input: object; text?: string };

/** What a call brought to the provider. */
export interface FakeRequest {
  model: string;
  role: FakeRole;
  /** The first message's text: the system prompt, with what the caller added to it. */
  system: string;
  modelOptions: Record<string, unknown> | undefined;
  toolMode: vscode.LanguageModelChatToolMode | undefined;
  tools: string[];
  /** Each offered tool's input schema, by name. */
  schemas: Record<string, object | undefined>;
  /**
   * The call's token was cancelled. In code-server 1.100 a consumer's cancel did not reach the
   * provider's token in these tests, which is why the vscode.lm adapter never waits on the provider alone.
   */
  cancelled: boolean;
}

export interface FakeLmApi {
  /** The answers per role, in call order; a call's role is read from its structured tool. */
  script(answers: Partial<Record<FakeRole, FakeAnswer[]>>): void;
  /** The answers not used yet. */
  remaining(): Record<FakeRole, number>;
  readonly requests: FakeRequest[];
}

/** The models: a family with a known reasoning option, and one without. */
export const FAKE_MODELS = [
  { id: 'fake-o4-mini', family: 'o4-mini', name: 'Fake o4-mini' },
  { id: 'fake-plain', family: 'fake-plain', name: 'Fake plain' },
] as const;

const ROLE_OF_TOOL: Record<string, FakeRole> = { diagnosis: 'debugger', review: 'reviewer', test_review: 'testReviewer' };

interface ChatRequestOptions {
  modelOptions?: Record<string, unknown>;
  tools?: vscode.LanguageModelChatTool[];
  toolMode?: vscode.LanguageModelChatToolMode;
}
type ResponsePart = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;
/** The 1.100 shape of the proposed `chatProvider` API, as far as this extension uses it. */
interface ProposedLm {
  registerChatModelProvider(
    id: string,
    provider: {
      provideLanguageModelResponse(
        messages: vscode.LanguageModelChatMessage[],
        options: ChatRequestOptions,
        extensionId: string,
        progress: vscode.Progress<{ index: number; part: ResponsePart }>,
        token: vscode.CancellationToken,
      ): Thenable<unknown>;
      provideTokenCount(text: string | vscode.LanguageModelChatMessage, token: vscode.CancellationToken): Thenable<number>;
    },
    metadata: {
      vendor: string;
      name: string;
      family: string;
      version: string;
      maxInputTokens: number;
      maxOutputTokens: number;
      capabilities?: { toolCalling?: boolean };
    },
  ): vscode.Disposable;
}

const textOf = (m: vscode.LanguageModelChatMessage | undefined): string =>
  (m?.content ?? []).map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

export function activate(context: vscode.ExtensionContext): FakeLmApi {
  const queues: Record<FakeRole, FakeAnswer[]> = { coder: [], debugger: [], reviewer: [], testReviewer: [] };
  const requests: FakeRequest[] = [];
  const lm = vscode.lm as unknown as ProposedLm;
  for (const model of FAKE_MODELS) {
    context.subscriptions.push(
      lm.registerChatModelProvider(
        model.id,
        {
          async provideLanguageModelResponse(messages, options, _extensionId, progress, token) {
            const tools = (options.tools ?? []).map((t) => t.name);
            const role = tools.map((t) => ROLE_OF_TOOL[t]).find((r) => r !== undefined) ?? 'coder';
            const schemas = Object.fromEntries((options.tools ?? []).map((t) => [t.name, t.inputSchema]));
            const request: FakeRequest = {
              model: model.id,
              role,
              system: textOf(messages[0]),
              modelOptions: options.modelOptions,
              toolMode: options.toolMode,
              tools,
              schemas,
              cancelled: false,
            };
            requests.push(request);
            token.onCancellationRequested(() => (request.cancelled = true));
            const answer = queues[role].shift();
            if (!answer) throw new Error(`fake-lm: no scripted ${role} answer left (call ${requests.length})`);
            if (answer.kind === 'neverStart') return new Promise<never>(() => undefined);
            const text = answer.kind === 'text' ? answer.text : (answer.text ?? '');
            const size = answer.kind === 'text' ? (answer.chunkChars ?? 200) : 200;
            for (let i = 0; i < text.length && !token.isCancellationRequested; i += size) {
              progress.report({ index: 0, part: new vscode.LanguageModelTextPart(text.slice(i, i + size)) });
              await new Promise((r) => setTimeout(r, 5));
            }
            if (answer.kind === 'tool')
              progress.report({
                index: 0,
                part: new vscode.LanguageModelToolCallPart(`fake-${requests.length}`, answer.name, answer.input),
              });
            return undefined;
          },
          provideTokenCount: (text) => Promise.resolve(Math.ceil((typeof text === 'string' ? text : textOf(text)).length / 4)),
        },
        {
          vendor: 'fake-lm',
          name: model.name,
          family: model.family,
          version: '1',
          maxInputTokens: 200_000,
          maxOutputTokens: 16_000,
          capabilities: { toolCalling: true },
        },
      ),
    );
  }
  return {
    script(answers) {
      for (const role of Object.keys(queues) as FakeRole[]) queues[role] = [...(answers[role] ?? [])];
      requests.length = 0;
    },
    remaining: () => ({
      coder: queues.coder.length,
      debugger: queues.debugger.length,
      reviewer: queues.reviewer.length,
      testReviewer: queues.testReviewer.length,
    }),
    requests,
  };
}
