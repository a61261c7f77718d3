import { getTokenizer } from '@anthropic-ai/tokenizer';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { renderCoderFile } from '../src/core/stages/coder/coderAnswer';
import { EDITOR_TOOL } from '../src/core/stages/coder/editorTool';
import { AnthropicProvider } from '../src/node/models/anthropic';
import { FakeAnthropic, reply, text, textReply, toolUse, type RecordedRequest } from '../test/support/fakeAnthropic';
import { light, runTicket } from '../test/support/rungRuns';
import { copyFixture, FIXTURE } from '../test/support/tempWorkspace';
import { round } from './measure';
import type { Row } from './report';

/**
 * A one-function change in the fixture's 2,275-line module (BLOG-12), answered twice through the
 * real SDK and the whole pipeline against the fake Messages API, which counts tokens and plays
 * the prompt cache as the API does: once as the recorded str_replace edit, once as the whole
 * changed file. The Coder's answer tokens of the two, and how much of the second Coder call's
 * input the cache serves.
 */
const TICKET = 'BLOG-12';
const FILE = 'src/content/markup.ts';

export interface EditTokens {
  fileLines: number;
  /** The Coder's output tokens over the edit conversation (the edit, then its one-line summary). */
  editAnswerTokens: number;
  /** The Coder's output tokens for the whole changed file. */
  wholeFileAnswerTokens: number;
  ratio: number;
  /** The edit conversation's second Coder call: its whole input, and what the cache served. */
  secondCall: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; readShare: number };
  passed: [string, string];
  tokenizer: string;
}

const isCoder = (r: RecordedRequest) => (r.body['tools'] as { name: string }[] | undefined)?.some((t) => t.name === EDITOR_TOOL) ?? false;

export async function measureEditTokens(): Promise<EditTokens> {
  const script = JSON.parse(readFileSync(path.join(FIXTURE, '.tickets', `${TICKET}.script.json`), 'utf8')) as {
    coder: { text?: string; toolCalls?: { name: string; input: unknown }[] }[];
  };
  const edit = script.coder[0]!.toolCalls![0]!;
  const { old_str: oldStr, new_str: newStr } = edit.input as { old_str: string; new_str: string };
  const original = readFileSync(path.join(FIXTURE, FILE), 'utf8');
  const tokenizer = getTokenizer();
  const fake = await FakeAnthropic.start({ measure: { countTokens: (s) => tokenizer.encode(s.normalize('NFKC'), 'all').length } });
  const provider = () => new AnthropicProvider({ apiKey: 'bench-key', baseURL: fake.baseURL });
  const run = async (...replies: Parameters<FakeAnthropic['enqueue']>): Promise<{ status: string; coder: RecordedRequest[] }> => {
    const ws = copyFixture();
    fake.reset();
    fake.enqueue(...replies);
    try {
      const { state } = await runTicket(ws.root, TICKET, { modelPort: provider(), ...light });
      return { status: state.status, coder: fake.requests.filter(isCoder) };
    } finally {
      ws.dispose();
    }
  };
  try {
    const edits = await run(
      reply([text(script.coder[0]!.text ?? ''), toolUse(edit.name, edit.input)]),
      textReply(script.coder[1]?.text ?? 'Done.'),
    );
    const whole = await run(textReply(renderCoderFile(FILE, original.replace(oldStr, newStr))));
    const out = (calls: RecordedRequest[]) => calls.reduce((n, r) => n + (r.usage?.output_tokens ?? 0), 0);
    const second = edits.coder[1]?.usage;
    if (!second) throw new Error('the edit run made no second Coder call');
    const input = second.input_tokens + second.cache_read_input_tokens + second.cache_creation_input_tokens;
    return {
      fileLines: original.split('\n').length,
      editAnswerTokens: out(edits.coder),
      wholeFileAnswerTokens: out(whole.coder),
      ratio: round(out(edits.coder) / out(whole.coder), 3),
      secondCall: {
        inputTokens: input,
        cacheReadTokens: second.cache_read_input_tokens,
        cacheWriteTokens: second.cache_creation_input_tokens,
        readShare: round(second.cache_read_input_tokens / input, 3),
      },
      passed: [edits.status, whole.status],
      tokenizer: '@anthropic-ai/tokenizer (Claude 2 BPE)',
    };
  } finally {
    tokenizer.free();
    await fake.close();
  }
}

export function editTokensRows(e: EditTokens): Row[] {
  return [
    {
      figure: `Coder answer tokens, a one-function change in a ${e.fileLines.toLocaleString('en-US')}-line file (BLOG-12): edit ÷ whole file`,
      measured: `${e.editAnswerTokens} tokens (one str_replace, then a one-line summary) vs ${e.wholeFileAnswerTokens.toLocaleString('en-US')} tokens (the whole changed file); both runs ${e.passed.join(' / ')}`,
      ratio: e.ratio,
      target: '≤ 0.05',
      met: e.ratio <= 0.05,
    },
    {
      figure: "The edit conversation's second Coder call: input read from the prompt cache ÷ its whole input",
      measured: `${e.secondCall.cacheReadTokens.toLocaleString('en-US')} of ${e.secondCall.inputTokens.toLocaleString('en-US')} tokens read, ${e.secondCall.cacheWriteTokens} written (the fake Messages API's cache, byte-for-byte prefixes up to a breakpoint)`,
      ratio: e.secondCall.readShare,
      target: '≥ 0.8',
      met: e.secondCall.readShare >= 0.8,
    },
  ];
}
