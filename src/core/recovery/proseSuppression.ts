import type { ModelAdaptation } from '../schema/events';

/**
 * Keeping prose out of an answer whose form the API cannot force. The Anthropic API forces the
 * structured tool, except with thinking on; vscode.lm passes `toolMode` to a provider that may
 * not honour it, and has no prefill. So the prompt asks, and an answer that came as text anyway
 * has its one JSON object taken out of it. Both are receipts on `model.called`.
 */

/** Asks for the structured tool when it cannot be forced. */
export const callTheToolInstruction = (tool: string): string => `Answer only by calling the \`${tool}\` tool.`;

/** Where the tool may not be called at all: the one form of text that can still be read. */
export const jsonOnlyInstruction = (tool: string): string =>
  `${callTheToolInstruction(tool)} If you cannot call it, answer with the tool's input as one JSON object and nothing else: no word before or after it.`;

/** For a Coder call with thinking asked for through an API that has no channel for it: reasoning stays out of the answer. */
export const CODE_WITHOUT_REASONING_INSTRUCTION =
  'Do not write your reasoning in the answer. Answer with the fenced code blocks only: no explanation before, between or after them.';

/** Text longer than this is not searched: an answer that size is no structured answer. */
const MAX_SEARCH_CHARS = 200_000;
/** Unbalanced openers tried before giving up, so that a text of a thousand `{` costs nothing. */
const MAX_OPENERS = 100;

export type JsonExtraction =
  | { value: Record<string, unknown>; adaptation: Extract<ModelAdaptation, { kind: 'answerExtracted' }> }
  | { value?: undefined; adaptation: Extract<ModelAdaptation, { kind: 'answerNotExtracted' }> };

interface Candidate {
  value: Record<string, unknown>;
  from: 'fencedJson' | 'bareJson';
  chars: number;
}

/**
 * The structured answer a model wrote as text: the one JSON object in it, in a fenced block or
 * bare. Two different objects (an example and the answer, say) are ambiguous, and nothing is
 * taken: the stage refuses the answer and asks again, rather than guess which one was meant.
 */
export function extractJsonAnswer(text: string): JsonExtraction {
  if (text.length > MAX_SEARCH_CHARS)
    return notExtracted(`the text is ${text.length} characters, over ${MAX_SEARCH_CHARS}: not searched for a JSON answer`);
  const candidates: Candidate[] = [];
  const FENCE = /```([^\n`]*)\n([\s\S]*?)```/g;
  let outside = '';
  let last = 0;
  for (const m of text.matchAll(FENCE)) {
    outside += text.slice(last, m.index) + '\n';
    last = m.index + m[0].length;
    const value = asObject(m[2] ?? '');
    if (value) candidates.push({ value, from: 'fencedJson', chars: m[0].length });
  }
  outside += text.slice(last);
  const bare = bareObjects(outside);
  if (bare === 'tooMany') return notExtracted(`over ${MAX_OPENERS} unbalanced "{" in the text: not searched further`);
  candidates.push(...bare);
  const distinct = new Map<string, Candidate>();
  for (const c of candidates) if (!distinct.has(JSON.stringify(c.value))) distinct.set(JSON.stringify(c.value), c);
  const found = [...distinct.values()];
  if (found.length === 0) return notExtracted(`no JSON object in ${text.length} characters of text`);
  if (found.length > 1) return notExtracted(`${found.length} different JSON objects in the text: which one is the answer is not clear`);
  const only = found[0]!;
  return {
    value: only.value,
    adaptation: { kind: 'answerExtracted', from: only.from, skippedChars: Math.max(0, text.length - only.chars) },
  };
}

const notExtracted = (detail: string): JsonExtraction => ({ adaptation: { kind: 'answerNotExtracted', detail } });

function asObject(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The top-level `{...}` spans of prose that parse as JSON objects; strings are skipped inside a span only. */
function bareObjects(text: string): Candidate[] | 'tooMany' {
  const found: Candidate[] = [];
  let openers = 0;
  for (let start = text.indexOf('{'); start !== -1;) {
    const end = closingBrace(text, start);
    const value = end === -1 ? undefined : asObject(text.slice(start, end + 1));
    if (value) {
      found.push({ value, from: 'bareJson', chars: end + 1 - start });
      start = text.indexOf('{', end + 1);
    } else {
      if (++openers > MAX_OPENERS) return 'tooMany';
      start = text.indexOf('{', start + 1);
    }
  }
  return found;
}

function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}
