import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { callsOf, runTicket } from '../../support/scenario';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * A stack frame is not a scope fact. The Coder's code calls a helper outside the scope with an
 * argument the helper rejects by design; the helper throws, so the failing test's last workspace
 * frame is in the helper. The Debugger blames the scope and quotes the throw; the run must send
 * the failure back to the Coder, whose call is wrong, and never ask the operator to widen the
 * scope. The helper, its own passing test, the ticket and its script are written into a copy
 * of blog-api here: the fixture's own tickets and suite stay as the other scenarios know them.
 */

/** Out of the ticket's scope, unchanged by the run; it throws on a title by design. */
const SLUG = `/** A URL slug: lowercase words joined by dashes. */
export function slugify(title: string): string {
  return title.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** A slug is never guessed from other text: anything that is not one is refused. */
export function assertSlug(slug: string): string {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) throw new RangeError(\`not a slug: "\${slug}"\`);
  return slug;
}
`;

/** The helper's own test: it passes before the run, so the helper does what it says. */
const SLUG_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertSlug, slugify } from '../src/utils/slug';

test('slugify makes a slug of a title', () => assert.equal(slugify('Hello World'), 'hello-world'));
test('assertSlug refuses what is not a slug', () => assert.throws(() => assertSlug('Hello World'), RangeError));
`;

const TICKET = {
  id: 'FRAME-1',
  title: 'A link to a post from its title',
  description: 'postLink(title) answers the path of a post: /posts/ followed by the slug of its title.',
  scope: { write: ['src/format/postLink.ts'], read: [] },
  acceptance: [{ id: 'AC1', text: "postLink('Hello World') is '/posts/hello-world'" }],
  testPlan: {
    files: [
      {
        path: 'test/ticket/FRAME-1.test.ts',
        suite: 'FRAME-1 postLink',
        imports: [{ from: '../../src/format/postLink', names: ['postLink'] }],
        cases: [
          {
            name: 'links a post by the slug of its title',
            criterion: 'AC1',
            expect: [{ kind: 'equal', actual: "postLink('Hello World')", expected: "'/posts/hello-world'" }],
          },
        ],
      },
    ],
  },
};

/** Attempt 1 passes the raw title to assertSlug, which refuses it; attempt 2 makes the slug first. */
const wrongCall =
  "import { assertSlug } from '../utils/slug';\n\nexport function postLink(title: string): string {\n  return `/posts/${assertSlug(title)}`;\n}\n";
const rightCall =
  "import { assertSlug, slugify } from '../utils/slug';\n\nexport function postLink(title: string): string {\n  return `/posts/${assertSlug(slugify(title))}`;\n}\n";

const SCRIPT = {
  $comment: 'A scope claim resting on a stack frame alone: the guard vetoes it and the Coder fixes its call.',
  coder: [
    { expect: { attempt: 1 }, files: { 'src/format/postLink.ts': wrongCall } },
    { expect: { attempt: 2 }, files: { 'src/format/postLink.ts': rightCall } },
  ],
  debugger: [
    {
      expect: { attempt: 1 },
      structured: {
        kind: 'manifest',
        claim: 'assertSlug in src/utils/slug.ts throws on the title; the scope must include src/utils/slug.ts so it can accept titles.',
        evidence: [{ source: 'testOutput', quote: 'not a slug: "Hello World"' }],
        brief: 'Add src/utils/slug.ts to the scope and let assertSlug accept titles.',
        avoid: [],
      },
    },
  ],
  reviewer: [{ expect: { attempt: 2 }, structured: { verdict: 'pass', blockers: [] } }],
  testReviewer: [
    {
      expect: { attempt: 2 },
      structured: { verdict: 'pass', criteria: [{ id: 'AC1', covered: true, claim: "the case checks postLink('Hello World')" }] },
    },
  ],
};

function writeInto(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
}

describe('scenario: a failing frame in unchanged code outside the scope', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
    writeInto(ws.root, {
      'src/utils/slug.ts': SLUG,
      'test/slug.test.ts': SLUG_TEST,
      '.tickets/FRAME-1.ticket.json': JSON.stringify(TICKET, null, 2),
      '.tickets/FRAME-1.script.json': JSON.stringify(SCRIPT, null, 2),
    });
  });
  afterEach(() => ws.dispose());

  it('the Coder calls an out-of-scope helper with an argument it rejects by design: the scope claim is vetoed and the run goes to code, then passes', async () => {
    const { state } = await runTicket(ws.root, 'FRAME-1');
    const [a1] = state.attempts;
    // The shape the guard must not take for a scope fact: the failing case's frame is in the helper.
    assert.match(a1?.tests?.cases.find((c) => c.status === 'failed')?.stack ?? '', /src\/utils\/slug\.ts:\d+/);
    assert.equal(a1?.diagnosis?.kind, 'manifest');
    assert.deepEqual([a1?.route?.route, a1?.route?.verdict], ['code', 'overridden']);
    assert.equal(state.corrections.length, 0, 'the operator is never asked to widen the scope');
    assert.equal(state.status, 'passed');
    assert.deepEqual([callsOf(state, 'coder'), callsOf(state, 'debugger')], [2, 1]);
  });
});
