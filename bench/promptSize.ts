import { countTokens } from '@anthropic-ai/tokenizer';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ModelScript, ScriptedModel } from '../src/node/models/scripted';
import { startRun } from '../src/core';
import type { ModelPort, ModelRequest } from '../src/core/ports/model';
import { wireNodeDeps } from '../src/node/wire';
import { importsOf, modulePath, moduleSource } from './genRepo';

/** The module the ticket changes; modules 0..3 are byte-identical in every generated size. */
const TARGET = 3;
const TICKET = '.tickets/GEN-1.ticket.json';
const TEST_FILE = 'test/ticket/GEN-1.test.ts';
const BUGGY_GUARD = 'if (Number.isNaN(options.limit))';

/**
 * Tokens from Anthropic's published tokenizer (@anthropic-ai/tokenizer). It is the Claude 2
 * vocabulary: later models' tokenizers are not public and count_tokens needs the network, so
 * the counts are close, not exact. The 100k ÷ 10k ratio is what the figure is about.
 */
export const TOKENIZER = '@anthropic-ai/tokenizer (Claude 2 BPE; newer Claude tokenizers are not public)';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

export interface DebuggerPromptSize {
  /** The user message the pipeline built with debuggerPrompt(): the Debugger's inputs. */
  promptBytes: number;
  promptTokens: number;
  /** System prompt, user message and the diagnosis tool's JSON Schema: the whole request. */
  requestBytes: number;
  requestTokens: number;
  /** Bytes per section of the prompt (its `## ` headings), so a change in size shows where it came from. */
  sections: Record<string, number>;
  /** The run went as scripted: a code route on attempt 1, passed on attempt 2. */
  outcome: string;
  prompt: string;
}

const ticket = () => ({
  id: 'GEN-1',
  title: 'clampM0003 rejects NaN',
  description:
    "clampM0003 passes NaN through, since Math.min and Math.max return NaN. It must throw a RangeError with the message 'value is NaN'; finite values keep clamping to [0, limit].",
  scope: { write: [modulePath(TARGET)], read: importsOf(TARGET).map(modulePath) },
  acceptance: [
    { id: 'AC1', text: "clampM0003(NaN) throws a RangeError 'value is NaN'" },
    { id: 'AC2', text: 'clampM0003(-5) is 0 and clampM0003(1e9) is the default limit' },
  ],
  testPlan: {
    files: [
      {
        path: TEST_FILE,
        suite: 'GEN-1 clampM0003 NaN',
        imports: [{ from: `../../${modulePath(TARGET).replace(/\.ts$/, '')}`, names: ['clampM0003', 'M0003_DEFAULTS'] }],
        cases: [
          {
            name: 'throws on NaN',
            criterion: 'AC1',
            expect: [{ kind: 'throws', call: 'clampM0003(Number.NaN)', message: 'value is NaN' }],
          },
          {
            name: 'clamps finite values',
            criterion: 'AC2',
            expect: [
              { kind: 'equal', actual: 'clampM0003(-5)', expected: '0' },
              { kind: 'equal', actual: 'clampM0003(1e9)', expected: 'M0003_DEFAULTS.limit' },
            ],
          },
        ],
      },
    ],
  },
});

/** Attempt 1 guards the wrong variable, so the NaN test fails and the Debugger is asked. */
function script(): ModelScript {
  const original = moduleSource(TARGET);
  const clamp = 'return Math.min(options.limit, Math.max(0, value));';
  const withGuard = (guard: string) => original.replace(clamp, `${guard} throw new RangeError('value is NaN');\n  ${clamp}`);
  return ModelScript.parse({
    coder: [
      { expect: { attempt: 1 }, files: { [modulePath(TARGET)]: withGuard(BUGGY_GUARD) } },
      { expect: { attempt: 2 }, files: { [modulePath(TARGET)]: withGuard('if (Number.isNaN(value))') } },
    ],
    debugger: [
      {
        expect: { attempt: 1 },
        structured: {
          kind: 'code',
          claim: 'The guard tests options.limit instead of value, so clampM0003(NaN) returns NaN instead of throwing.',
          evidence: [{ source: 'implementation', file: modulePath(TARGET), quote: BUGGY_GUARD }],
          brief: 'Test the value argument with Number.isNaN before clamping; options.limit is a number from the defaults.',
          avoid: ['guarding options.limit'],
        },
      },
    ],
  });
}

/**
 * Runs the GEN-1 ticket through startRun on a generated repo with the scripted model, and
 * keeps the Debugger's request exactly as the pipeline built it: nothing is rebuilt here, so
 * the figure is what a real model would be sent.
 */
export async function measureDebuggerPrompt(root: string): Promise<DebuggerPromptSize> {
  mkdirSync(path.join(root, '.tickets'), { recursive: true });
  writeFileSync(path.join(root, TICKET), JSON.stringify(ticket(), null, 2) + '\n');
  const scripted = new ScriptedModel(
    script(),
    () => {
      throw new Error('the GEN-1 script has no files beside it');
    },
    'bench GEN-1',
  );
  const requests: ModelRequest[] = [];
  const recording: ModelPort = {
    info: scripted.info,
    complete: (request, signal) => {
      if (request.role === 'debugger') requests.push(request);
      return scripted.complete(request, signal);
    },
  };
  const deps = await wireNodeDeps({ workspaceRoot: root, model: 'scripted', modelPort: recording, env: {} });
  try {
    const result = await startRun(deps, { ticketPath: TICKET, signal: new AbortController().signal });
    const route = result.state.attempts[0]?.route?.route;
    const outcome = `${result.state.status} after ${result.state.attempts.length} attempt(s), attempt 1 routed to ${route ?? 'nothing'}`;
    const first = requests[0];
    if (!first || result.state.status !== 'passed' || route !== 'code') throw new Error(`GEN-1 did not run as scripted: ${outcome}`);
    const prompt = first.messages.map((m) => m.content).join('\n');
    const request = [first.system, prompt, JSON.stringify(first.structured?.jsonSchema ?? {})].join('\n');
    const sections: Record<string, number> = {};
    for (const part of prompt.split(/^(?=## )/m)) sections[part.split('\n', 1)[0]!.replace(/^## /, '')] = bytes(part);
    return {
      promptBytes: bytes(prompt),
      promptTokens: countTokens(prompt),
      requestBytes: bytes(request),
      requestTokens: countTokens(request),
      sections,
      outcome,
      prompt,
    };
  } finally {
    deps.diagnostics?.dispose?.();
  }
}
