import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import type { RunEvent } from '../../../src/core/schema/events';
import { copyFixture } from '../../support/tempWorkspace';
import { answer, blog1Diagnosis, light, loadEvents, runTicket, writeScript } from '../../support/rungRuns';

/**
 * The repeat guard in a real run: a Coder that answers the flagged approach again with its
 * names changed, its layout redone and a comment added (what would slip past a comparison of
 * text) is escalated, and the escalation proposes something concrete, read from the run log.
 */

const POSTS = 'src/handlers/posts.ts';

/** BLOG-1's wrong answer with every disguise a repeat could wear: renamed parameter, new layout, a comment, other quotes. */
function disguised(wrong: string): string {
  const renamed = wrong.replace(/\breq\b/g, 'request');
  return renamed.replace(
    /  if \(perPage > MAX_PER_PAGE\) \{\n    return \{ status: 400, body: \{ error: 'perPage max is 100' \} \};\n  \}\n/,
    '  // Too many per page: refuse.\n  if (perPage>MAX_PER_PAGE) { return { status: 400, body: { error: "perPage max is 100" } }; }\n',
  );
}

describe('scenarios: the repeat guard', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('escalates a Coder that repeats the flagged approach with renamed variables, and proposes a concrete correction', async () => {
    const wrong = answer(ws.root, 'BLOG-1', 'attempt1.ts');
    const again = disguised(wrong);
    assert.notEqual(again, wrong, 'the disguise changed the text');
    assert.match(again, /request\.query/);
    writeScript(ws.root, 'BLOG-1', {
      coder: [
        { expect: { attempt: 1, promptIncludes: [] }, files: { [POSTS]: wrong } },
        { expect: { attempt: 2, promptIncludes: ['guarding the clamped perPage value'] }, files: { [POSTS]: again } },
      ],
      debugger: [blog1Diagnosis(ws.root, 1), blog1Diagnosis(ws.root, 2)],
    });

    const { runId, state } = await runTicket(ws.root, 'BLOG-1', light);
    assert.equal(state.status, 'needsOperator', JSON.stringify(state.finished));
    const events: RunEvent[] = await loadEvents(ws.root, runId);

    const routed = events.filter((e): e is Extract<RunEvent, { type: 'router.routed' }> => e.type === 'router.routed');
    assert.deepEqual(
      routed.map((e) => e.route),
      ['code', 'escalate'],
    );
    assert.equal(routed[1]!.guard.fact?.kind, 'repeatedApproach');
    assert.match(routed[1]!.guard.fact?.detail ?? '', /100% the same code structure \(identifiers and literals set aside\)/);

    const requested = events.find((e): e is Extract<RunEvent, { type: 'correction.requested' }> => e.type === 'correction.requested');
    assert.ok(requested, 'the escalation asks the operator');
    const { request } = requested;
    assert.equal(request.fact.kind, 'repeatedApproach');
    // Never an empty proposal: the ticket's criterion the failing test names, quoted as the ticket says it, and what to state.
    const p = request.proposal.kind === 'ticketUnclear' ? request.proposal : undefined;
    assert.ok(p, `a "ticket unclear" proposal, not ${request.proposal.kind}`);
    assert.equal(request.target, 'ticket');
    assert.equal(p?.where, 'acceptance criterion AC1');
    const ticket = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as {
      acceptance: { id: string; text: string }[];
    };
    assert.equal(p?.quote, ticket.acceptance.find((a) => a.id === 'AC1')?.text);
    assert.match(
      p?.change ?? '',
      /the test "BLOG-1 listPosts perPage limit > \[AC1\] rejects perPage above 100" still fails \(expected 400, received 200\)/,
    );
    assert.match(p?.change ?? '', /the Debugger flagged "guarding the clamped perPage value"/);
    // Accept cannot apply a question: the preview says what to do by hand.
    const preview = requested.preview;
    assert.match(preview && 'problem' in preview ? preview.problem : '', /^edit the ticket by hand: Two attempts took the same approach/);

    // `show` prints the proposal from the log.
    const out: string[] = [];
    assert.equal(
      await runCli(
        ['show', runId, '--workspace', ws.root],
        { out: (s) => out.push(s), err: () => undefined },
        new AbortController().signal,
      ),
      0,
    );
    assert.match(
      out.join('\n'),
      /proposal: ticket unclear, acceptance criterion AC1: "perPage=500 answers 400 with \{ error: 'perPage max is 100' \}"/,
    );
  });

  it('proposes the out-of-scope file when the repeated failure points at one', async () => {
    const wrong = answer(ws.root, 'BLOG-1', 'attempt1.ts');
    // The failure's stack frame is in src/utils/pagination.ts, outside scope.write: the scope is the likely wrong input.
    const throwing = (n: number) =>
      wrong
        .replace(
          "import { MAX_PER_PAGE, parsePaginationParams } from '../utils/pagination';",
          `import { MAX_PER_PAGE, parsePaginationParams } from '../utils/pagination';\nconst tries${n} = ${n};`,
        )
        .replace(
          'const { page, perPage } = parsePaginationParams(req.query);',
          `const { page, perPage } = parsePaginationParams(null as unknown as Record<string, string>);`,
        );
    writeScript(ws.root, 'BLOG-1', {
      coder: [
        { expect: { attempt: 1, promptIncludes: [] }, files: { [POSTS]: throwing(1) } },
        { expect: { attempt: 2, promptIncludes: [] }, files: { [POSTS]: throwing(2) } },
      ],
      debugger: [1, 2].map((attempt) => ({
        expect: { attempt, promptIncludes: [] },
        structured: {
          kind: 'code',
          claim: 'parsePaginationParams gets null and throws.',
          evidence: [{ source: 'testOutput', quote: 'TypeError' }],
          brief: 'Pass req.query.',
          avoid: ['passing null to the parser'],
        },
      })),
    });
    const { runId, state } = await runTicket(ws.root, 'BLOG-1', light);
    assert.equal(state.status, 'needsOperator', JSON.stringify(state.finished));
    const events = await loadEvents(ws.root, runId);
    const requested = events.find((e): e is Extract<RunEvent, { type: 'correction.requested' }> => e.type === 'correction.requested');
    assert.equal(requested?.request.fact.kind, 'repeatedApproach');
    assert.deepEqual(requested?.request.proposal, { kind: 'scopeAddition', paths: ['src/utils/pagination.ts'] });
    assert.equal(requested?.request.target, 'manifest');
  });
});
