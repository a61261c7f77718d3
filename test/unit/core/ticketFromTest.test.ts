import { strict as assert } from 'node:assert';
import { parse } from 'yaml';
import { UserInputError } from '../../../src/core/errors';
import { ticketFromTest } from '../../../src/core/stages/authoring/ticketFromTest';
import { validateTicket } from '../../../src/core/stages/authoring/validateTicket';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';

/** A test file of blog-api's, as its author would write it first: slug.ts is not written yet. */
const SLUG_TEST = `import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/utils/slug';
import { createPost } from '../src/store/postStore.js';
import { samplePost } from './support/posts';
// it('a commented-out case', () => {});

describe('slugify', () => {
  it('lowercases the title', () => {
    assert.match(slugify('Hello World'), /^[a-z-(]+$/);
  });
  describe('punctuation', () => {
    it(\`drops "quotes"\`, () => assert.equal(slugify('"a"') , 4 / 2 ? 'a' : ''));
    it.only('keeps digits', () => assert.equal(slugify('a1'), 'a1'));
  });
  it('trims', () => assert.equal(slugify(samplePost.title), createPost(samplePost).slug));
});
`;

/** Blog-api with a test helper beside the test: the draft takes what exists from here. */
function blogApi(): MemoryWorkspace {
  const ws = MemoryWorkspace.ofFixture('blog-api');
  ws.files.set('test/support/posts.ts', 'export const samplePost = { title: "A" };\n');
  ws.files.set('test/slug.test.ts', SLUG_TEST);
  return ws;
}

const draft = (text: string, ws = blogApi(), testPath = 'test/slug.test.ts') =>
  ticketFromTest(ws, { testPath, text, existingTicketIds: [...ws.files.keys()].filter((p) => p.startsWith('.tickets/')).map(idOf) });
const idOf = (p: string) => p.slice('.tickets/'.length).replace(/\.(ticket|script)\.json$/, '');

interface Drafted {
  id: string;
  title: string;
  description: string;
  scope: { write: string[]; read?: string[] };
  acceptance: { id: string; text: string }[];
  testPlan: unknown;
}

describe('a ticket drafted from a test the user wrote', () => {
  it('takes the test as its only oracle, its cases as criteria (nested suites named) and the next free id', async () => {
    const t = await draft(SLUG_TEST);
    const ticket = parse(t.text) as Drafted;
    assert.equal(t.id, 'BLOG-16');
    assert.equal(t.path, '.tickets/BLOG-16.ticket.yaml');
    assert.equal(ticket.id, 'BLOG-16');
    assert.equal(ticket.title, 'slugify');
    assert.deepEqual(ticket.testPlan, { authored: ['test/slug.test.ts'] });
    assert.deepEqual(ticket.acceptance, [
      { id: 'AC1', text: 'lowercases the title' },
      { id: 'AC2', text: 'punctuation > drops "quotes"' },
      { id: 'AC3', text: 'punctuation > keeps digits' },
      { id: 'AC4', text: 'trims' },
    ]);
    assert.equal(t.criteria, 4);
    assert.match(t.text, /^# Drafted from test\/slug\.test\.ts/);
  });

  it('scopes the code the test imports, one not written yet included; packages and the test folder are not the Coder’s to change', async () => {
    const t = await draft(SLUG_TEST);
    const ticket = parse(t.text) as Drafted;
    // The .js of an ESM specifier is the TypeScript source; a module not written yet takes the test's language.
    assert.deepEqual(ticket.scope.write, ['src/utils/slug.ts', 'src/store/postStore.ts']);
    assert.deepEqual(t.created, ['src/utils/slug.ts']);
    assert.match(ticket.description, /src\/utils\/slug\.ts does not exist yet: the change creates it\./);
    // A helper the test reads could change its verdict: read-only.
    assert.deepEqual(ticket.scope.read, ['test/support/posts.ts']);
  });

  it('is a ticket validate finds no error in', async () => {
    const ws = blogApi();
    const t = await draft(SLUG_TEST, ws);
    const { findings } = await validateTicket({ workspace: ws }, t.path, t.text, new AbortController().signal);
    assert.deepEqual(
      findings.filter((f) => f.severity === 'error'),
      [],
    );
  });

  it("resolves a folder's index and a JavaScript test's new module, and never scopes the test itself", async () => {
    const ws = blogApi();
    ws.files.set('src/lib/index.ts', 'export {};\n');
    const text = `const lib = require('../src/lib');\nconst again = require('./own.spec.js');\nconst { tags } = require('../src/tags');\ntest('tags', () => {});\n`;
    ws.files.set('test/own.spec.js', text);
    const t = await draft(text, ws, 'test/own.spec.js');
    assert.deepEqual(t.write, ['src/lib/index.ts', 'src/tags.js']);
    assert.deepEqual(t.created, ['src/tags.js']);
    const ticket = parse(t.text) as Drafted;
    assert.equal(ticket.title, 'Make own.spec.js pass');
    assert.equal(ticket.scope.read, undefined);
  });

  it('asks for every case to pass when no case has a name it can read', async () => {
    const text = `import { test } from 'node:test';\nimport { slugify } from '../src/utils/slug';\nfor (const c of ['a', 'b']) test(\`slug of \${c}\`, () => slugify(c));\n`;
    const ticket = parse((await draft(text)).text) as Drafted;
    assert.deepEqual(ticket.acceptance, [{ id: 'AC1', text: 'every case in test/slug.test.ts passes' }]);
  });

  it("takes TICKET-1 when no ticket is numbered, and the number after the tickets' otherwise", async () => {
    const ws = blogApi();
    const first = await ticketFromTest(ws, { testPath: 'test/slug.test.ts', text: SLUG_TEST, existingTicketIds: ['notes'] });
    assert.equal(first.id, 'TICKET-1');
    const next = await ticketFromTest(ws, { testPath: 'test/slug.test.ts', text: SLUG_TEST, existingTicketIds: ['API-007', 'notes'] });
    assert.equal(next.id, 'API-008');
  });

  it('refuses a file with no test, one not named as a test, and a test that imports no code of the workspace', async () => {
    await assert.rejects(draft(`import { slugify } from '../src/utils/slug';\n`), (err: Error) => {
      assert.ok(err instanceof UserInputError);
      assert.equal(err.message, 'test/slug.test.ts has no test in it: write a test(…) or it(…) case first, then draft its ticket');
      return true;
    });
    await assert.rejects(draft(SLUG_TEST, blogApi(), 'src/utils/slug.ts'), /src\/utils\/slug\.ts is not named as a test/);
    await assert.rejects(
      draft(`import { test } from 'node:test';\ntest('adds', () => {});\n`),
      /test\/slug\.test\.ts imports no code of the workspace by a relative path/,
    );
  });
});
