import type { ModelAdaptation, ModelInfo, ModelRole } from '../schema/events';

/**
 * A message in a model conversation. Tool results go back as `tool` messages. `cache` marks a
 * prompt-cache breakpoint after the message: everything up to it is the same in the calls
 * that follow (a provider with a prompt cache reads it from there; the others ignore it).
 */
export type ModelMessage =
  | { role: 'user'; content: string; cache?: boolean }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; reasoning?: ReasoningBlock[] }
  | { role: 'tool'; toolCallId: string; content: string; isError?: boolean; cache?: boolean };

/**
 * Opaque reasoning the provider returned with an answer. A tool-use turn made with
 * thinking on must send it back unchanged (Anthropic rejects the follow-up otherwise);
 * it is never shown to another role.
 */
export type ReasoningBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted'; data: string };

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** A tool the model may call during generation: the Coder's file editor, rung 4's `run_tests`. */
export interface ToolSpec {
  name: string;
  /**
   * `textEditor`: the file editor whose commands are those of Claude's text editor tool
   * (src/core/stages/coder/editorTool.ts); a provider whose model is trained on that tool
   * sends its own type instead of this schema.
   */
  kind?: 'textEditor';
  description: string;
  /** JSON Schema of the input. */
  inputSchema: Record<string, unknown>;
}

/** Structured output: the provider forces a tool whose input schema is this JSON Schema. */
export interface StructuredSpec {
  name: string;
  description: string;
  jsonSchema: Record<string, unknown>;
}

/** Who is asking: a run's roles, or the drafter (`draft`: a ticket from an issue's text, outside any run). */
export type CallRole = ModelRole | 'drafter';

export interface ModelRequest {
  role: CallRole;
  /** The attempt this call belongs to, for the run log. */
  attempt: number;
  system: string;
  messages: ModelMessage[];
  /** Extended thinking (rung 3 turns it on; rung 1 flips it). */
  thinking?: boolean;
  maxTokens?: number;
  structured?: StructuredSpec;
  tools?: ToolSpec[];
  /** Streamed text as it arrives; rung 1 watches it and may abort. */
  onText?: (delta: string, soFar: string) => void;
  /**
   * Any streamed progress, text or not (thinking, tool input): rung 1 tells a slow answer
   * from one that never started by it. Providers that cannot tell leave it uncalled.
   */
  onActivity?: () => void;
  /**
   * A provider that changes the call to fit its API (an option mapped, an instruction added, an
   * answer taken out of prose) says so here, before it returns or throws: the run keeps it.
   */
  onAdapted?: (adaptation: ModelAdaptation) => void;
  /** Per-call time limit. */
  timeoutMs?: number;
}

export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface ModelResponse {
  /** The text of the answer (without thinking). */
  text: string;
  /** The structured tool input, unvalidated: the caller validates it with zod. */
  structured?: unknown;
  toolCalls: ToolCall[];
  /** Reasoning to echo back in the assistant message of a tool-use round trip. */
  reasoning?: ReasoningBlock[];
  stopReason: 'end' | 'maxTokens' | 'toolUse' | 'aborted';
  usage: ModelUsage;
  costUsd: number;
  latencyMs: number;
  /** How many times the transport retried (429, 529, connection errors). */
  retries: number;
}

/**
 * The one door to every model. Providers: scripted (tests and demo; always says so),
 * Anthropic, and vscode.lm in the editor.
 */
export interface ModelPort {
  readonly info: ModelInfo;
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}
