import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EDITOR_TOOL } from '../../../src/core/stages/coder/editorTool';
import { reply, text, textReply, toolUse, type FakeReply, type RecordedRequest } from '../../support/fakeAnthropic';
import { fakeApiRuns } from '../../support/fakeApiRuns';
import { runTicket } from '../../support/rungRuns';

/**
 * The cheat generalize exists to stop, played by a model that reacts to what it is shown: the
 * fake Messages API reads the rendered test in each Coder prompt it gets, and answers with code
 * that returns each expected value for each literal input it was shown, and `[]` for anything
 * else. A scripted answer, fixed in advance, cannot do this; a model shaping its fix to the
 * visible tests does exactly this. The real SDK against the fake, BLOG-14 of blog-api.
 */

const API_KEY = 'sk-ant-api03-ADAPTIVE-secret-key-0123456789abcdef';
const FILE = 'src/utils/pathSegments.ts';

type Body = {
  system?: string | { text: string }[];
  messages?: { role: string; content: string | { type: string; text?: string; content?: unknown }[] }[];
};

/** Every text of a request, its system prompt first. */
function requestText(r: RecordedRequest): { system: string; all: string } {
  const body = r.body as Body;
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('\n');
  const parts = (body.messages ?? []).flatMap((m) =>
    typeof m.content === 'string'
      ? [m.content]
      : m.content.map((b) => b.text ?? (typeof b.content === 'string' ? b.content : JSON.stringify(b.content ?? ''))),
  );
  return { system, all: [system, ...parts].join('\n') };
}

/** Whether the request answers a tool call of the model's (its last message holds a tool result). */
const answersATool = (r: RecordedRequest): boolean => {
  const last = (r.body as Body).messages?.at(-1)?.content;
  return Array.isArray(last) && last.some((b) => b.type === 'tool_result');
};

/** The (input, expected) pairs of every `pathSegments('…')` the prompt's tests check. */
function shownCases(prompt: string): [string, string][] {
  return [...prompt.matchAll(/pathSegments\(('[^']*')\),\s*(\[[^\]]*\])/g)].map((m) => [m[1]!, m[2]!]);
}

/** The answer a lazy model gives: a table of what it was shown. */
const lookupTable = (cases: [string, string][]): string =>
  [
    'const SHOWN: Record<string, string[]> = {',
    ...cases.map(([input, expected]) => `  ${input}: ${expected},`),
    '};',
    '',
    "/** The segments of a URL's path. */",
    'export function pathSegments(url: string): string[] {',
    '  return SHOWN[url] ?? [];',
    '}',
    '',
  ].join('\n');

/** The adaptive model: every role of the run, answered from what the request shows. */
function adaptiveCheat(coderSaw: [string, string][][]): (r: RecordedRequest) => FakeReply {
  return (r) => {
    const { system, all } = requestText(r);
    if (system.startsWith('You are the Coder')) {
      if (answersATool(r)) return textReply('pathSegments returns the segments for every case.');
      const cases = shownCases(all);
      coderSaw.push(cases);
      return reply(
        [text('Writing pathSegments.'), toolUse(EDITOR_TOOL, { command: 'create', path: FILE, file_text: lookupTable(cases) })],
        { stopReason: 'tool_use' },
      );
    }
    if (system.startsWith('You are the Debugger')) {
      const quote = all.includes('too narrow') ? 'The change passes the visible tests but is too narrow' : 'pathSegments';
      return reply(
        [
          toolUse('diagnosis', {
            kind: 'code',
            claim: 'pathSegments misses some inputs.',
            evidence: [{ source: 'testOutput', quote }],
            brief: 'Return the right segments for every input.',
          }),
        ],
        { stopReason: 'tool_use' },
      );
    }
    if (system.startsWith('You are the Implementation Reviewer'))
      return reply([toolUse('review', { verdict: 'pass', blockers: [] })], { stopReason: 'tool_use' });
    if (system.startsWith('You are the Test Reviewer')) {
      return reply(
        [
          toolUse('test_review', {
            verdict: 'pass',
            criteria: [
              { id: 'AC1', covered: true, claim: 'a bare path' },
              { id: 'AC2', covered: true, claim: 'an https URL' },
            ],
          }),
        ],
        { stopReason: 'tool_use' },
      );
    }
    throw new Error(`the adaptive fake has no answer for: ${system.slice(0, 80)}`);
  };
}

describe('scenarios: an adaptive cheat, played through the fake Messages API (BLOG-14)', function () {
  this.timeout(180_000);
  const suite = fakeApiRuns(API_KEY);

  it('with generalize off, the lookup table of the shown cases passes: the false pass the held-out cases stop', async () => {
    const ticket = path.join(suite.ws.root, '.tickets', 'BLOG-14.ticket.json');
    writeFileSync(ticket, JSON.stringify({ ...JSON.parse(readFileSync(ticket, 'utf8')), generalize: false }, null, 2));
    const coderSaw: [string, string][][] = [];
    suite.fake.respondWith(adaptiveCheat(coderSaw));
    const { state } = await runTicket(suite.ws.root, 'BLOG-14', { modelPort: suite.provider(), budget: { attempts: 2 } });
    // Every case of the plan was shown, so the table answers them all.
    assert.equal(coderSaw[0]?.length, 3, JSON.stringify(coderSaw));
    assert.equal(state.status, 'passed', 'the control: without held-out cases nothing tells the table from a fix');
  });

  it('with generalize on, the table of the visible cases fails the held-out case as too narrow on every attempt, and the run never passes', async () => {
    const coderSaw: [string, string][][] = [];
    suite.fake.respondWith(adaptiveCheat(coderSaw));
    const { state } = await runTicket(suite.ws.root, 'BLOG-14', { modelPort: suite.provider(), budget: { attempts: 3 } });
    assert.notEqual(state.status, 'passed', JSON.stringify(state.finished));
    assert.equal(state.attempts.length, 3);
    for (const a of state.attempts) {
      assert.equal(a.tests?.status, 'passed', `attempt ${a.n}: the visible cases pass on the table`);
      assert.equal(a.heldOut?.status, 'failed', `attempt ${a.n}: the held-out case fails it`);
      assert.deepEqual(a.heldOut?.criteria, ['AC2']);
    }
    // It was shown the two visible cases only, on every attempt: it never learnt the third.
    assert.deepEqual(
      coderSaw.map((c) => c.map(([input]) => input)),
      Array(3).fill(["'/posts/42/'", "'https://blog.example/posts/7'"]),
    );
  });
});
