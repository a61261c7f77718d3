import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEvent } from '../../../src/core/schema/events';
import { copyFixture } from '../../support/tempWorkspace';
import { loadEvents, runTicket, writeScript } from '../../support/rungRuns';

/**
 * A ticket that declares what it creates (the `declare` op), in whole runs on blog-api with the
 * real language service and test runner: the declaration is laid before the Coder, the Coder is
 * told the signature, a declared value the Coder leaves unwritten fails the checks, and a test
 * plan that expects what the declared type cannot hold is confirmed wrong from the ticket's own
 * type, before any of the Coder's code could have decided it.
 */

const SLUG = 'src/utils/slug.ts';

function writeTicket(root: string, expected: string): void {
  const ticket = {
    id: 'DECL-1',
    title: 'Split a title into slug words',
    description: 'A post title becomes its slug words: lower case, split on spaces. At most MAX_SLUG_WORDS words are kept.',
    scope: { write: [SLUG], read: [] },
    acceptance: [{ id: 'AC1', text: "slugWords('Hello World') gives the words hello and world" }],
    testPlan: {
      files: [
        {
          path: 'test/ticket/DECL-1.test.ts',
          suite: 'DECL-1 slug words',
          imports: [{ from: '../../src/utils/slug', names: ['slugWords'] }],
          cases: [
            {
              name: 'splits a title',
              criterion: 'AC1',
              expect: [{ kind: 'equal', mode: 'deep', actual: "slugWords('Hello World')", expected }],
            },
          ],
        },
      ],
    },
    ops: [{ op: 'declare', file: SLUG, exports: ['function slugWords(title: string): string[]', 'const MAX_SLUG_WORDS: number'] }],
  };
  writeFileSync(path.join(root, '.tickets', 'DECL-1.ticket.json'), JSON.stringify(ticket, null, 2));
}

const WORDS =
  'export function slugWords(title: string): string[] {\n  return title.toLowerCase().split(/\\s+/).slice(0, MAX_SLUG_WORDS);\n}\n';
const BOTH = `export const MAX_SLUG_WORDS = 8;\n\n${WORDS}`;
/** The first answer writes the function and leaves the declared constant as the ticket laid it. */
const HALF = `export declare const MAX_SLUG_WORDS: number;\n\n${WORDS}`;

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('scenarios: a ticket that declares what it creates', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('lays the declarations before the Coder, tells it the signatures, and fails an attempt that leaves a declared value unwritten', async () => {
    writeTicket(ws.root, "['hello', 'world']");
    writeScript(ws.root, 'DECL-1', {
      coder: [
        {
          expect: {
            attempt: 1,
            promptIncludes: ['export function slugWords(title: string): string[]', 'export const MAX_SLUG_WORDS: number'],
          },
          files: { [SLUG]: HALF },
        },
        { expect: { attempt: 2, promptIncludes: ["is still only the ticket's declaration"] }, files: { [SLUG]: BOTH } },
      ],
      debugger: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          structured: {
            kind: 'code',
            claim: 'MAX_SLUG_WORDS is declared by the ticket but has no value, so the slice reads undefined.',
            evidence: [{ source: 'diagnostics', quote: "MAX_SLUG_WORDS is still only the ticket's declaration" }],
            brief: 'Give MAX_SLUG_WORDS its value in src/utils/slug.ts.',
            avoid: [],
          },
        },
      ],
    });
    const { runId, state } = await runTicket(ws.root, 'DECL-1');
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const events = await loadEvents(ws.root, runId);
    const [applied] = ofType(events, 'op.applied');
    assert.equal(applied?.op.op, 'declare');
    // The op created the file: a rollback deletes it.
    const opWrite = ofType(events, 'files.written').find((e) => e.by === 'op');
    assert.deepEqual(
      opWrite?.files.map((f) => [f.path, f.before]),
      [[SLUG, null]],
    );
    const diagnosed = ofType(events, 'check.diagnosed');
    assert.equal(diagnosed[0]?.ok, false);
    assert.deepEqual(
      diagnosed[0]?.diagnostics.filter((d) => d.code === 'declared').map((d) => `${d.file}:${d.line}`),
      [`${SLUG}:1`],
    );
    assert.equal(diagnosed[1]?.ok, true);
  });

  it("confirms a test wrong that expects what the declared type cannot hold, from the ticket's type alone", async () => {
    // The plan expects a string from a function the ticket says returns string[].
    writeTicket(ws.root, "'hello-world'");
    writeScript(ws.root, 'DECL-1', {
      coder: [{ expect: { attempt: 1, promptIncludes: [] }, files: { [SLUG]: BOTH } }],
      debugger: [
        {
          expect: { attempt: 1, promptIncludes: [] },
          structured: {
            kind: 'test',
            claim:
              "The ticket declares slugWords as returning string[], so the test's expected string 'hello-world' can never be its value.",
            evidence: [
              { source: 'testFile', quote: "slugWords('Hello World')" },
              { source: 'implementation', quote: 'title.toLowerCase().split(' },
            ],
            brief: "Correct AC1's expectation to the words ['hello', 'world'].",
            avoid: [],
          },
        },
      ],
    });
    const { runId, state } = await runTicket(ws.root, 'DECL-1');
    assert.equal(state.status, 'needsOperator', JSON.stringify(state.finished));
    const events = await loadEvents(ws.root, runId);
    const [routed] = ofType(events, 'router.routed');
    assert.equal(routed?.route, 'test');
    assert.equal(routed?.guard.fact?.kind, 'testExpectsImpossibleValue', JSON.stringify(routed?.guard));
    assert.match(
      routed?.guard.fact?.detail ?? '',
      /expects slugWords\('Hello World'\) to equal 'hello-world', which its declared type cannot hold \(TS2345: Argument of type 'string' is not assignable to parameter of type 'string\[\]'/,
    );
  });
});
