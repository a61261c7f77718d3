import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Ticket } from '../../../src/core/schema/ticket';
import { materialize } from '../../../src/core/stages/materializer';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { cli } from '../../support/cli';
import { copyFixture, treeHash } from '../../support/tempWorkspace';

describe('ticket-runner validate and render: a ticket checked as a run would, with no run', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => (ws = copyFixture()));
  after(() => ws.dispose());

  it('a sound ticket is ok (exit 0); one whose ticket is wrong is caught before any run (exit 3), at its JSON path', async () => {
    const before = treeHash(ws.root);
    const ok = await cli(['validate', '.tickets/BLOG-1.ticket.json', '--workspace', ws.root]);
    assert.equal(ok.code, 0, ok.err);
    assert.equal(ok.out, '.tickets/BLOG-1.ticket.json: ok');
    // BLOG-3's ticket names a field the code does not have: a run would route it to the ticket after a failed attempt.
    const wrong = await cli(['validate', '.tickets/BLOG-1.ticket.json', '.tickets/BLOG-3.ticket.json', '--workspace', ws.root]);
    assert.equal(wrong.code, 3);
    assert.match(
      wrong.out,
      /^\.tickets\/BLOG-3\.ticket\.json: error at \$\.refs\[0\]: refs\[0\]: Post\.publishedAt does not resolve in src\/types\.ts/m,
    );
    assert.equal(treeHash(ws.root), before, 'validate writes nothing');
  });

  it('validate and render name the held-out cases (BLOG-14 holds out its last AC2 case), and render prints their file last', async () => {
    const before = treeHash(ws.root);
    const v = await cli(['validate', '.tickets/BLOG-14.ticket.json', '--workspace', ws.root]);
    assert.equal(v.code, 0, v.err);
    assert.match(
      v.out,
      /^\.tickets\/BLOG-14\.ticket\.json: held out at \$\.testPlan\.files\[0\]\.cases\[2\]: "\[AC2\] takes the path of another URL, without its query or fragment" \(the last case of its criterion\), rendered to test\/ticket\/BLOG-14\.heldout\.test\.ts; the Coder never sees it$/m,
    );
    const json = await cli(['validate', '.tickets/BLOG-14.ticket.json', '--workspace', ws.root, '--json']);
    assert.deepEqual(
      (JSON.parse(json.out) as { heldOut: { file: string }[] }[])[0]!.heldOut.map((c) => c.file),
      ['test/ticket/BLOG-14.heldout.test.ts'],
    );
    const r = await cli(['render', '.tickets/BLOG-14.ticket.json', '--workspace', ws.root]);
    assert.equal(r.code, 0, r.err);
    const [visible, held] = r.out.split(/^\/\/ ==> test\/ticket\/BLOG-14\.heldout\.test\.ts <== held out/m);
    assert.ok(held, r.out);
    assert.doesNotMatch(visible!, /localhost:3000/);
    assert.match(held, /localhost:3000/);
    assert.match(r.err, /held out at \$\.testPlan\.files\[0\]\.cases\[2\]/);
    assert.equal(treeHash(ws.root), before, 'neither writes anything');
  });

  it('a plan for a function the ticket declares type-checks against the declaration: no warning over it, and nothing written', async () => {
    const ticket = {
      id: 'DECL-2',
      title: 'Slug words',
      description: 'A title becomes its slug words.',
      scope: { write: ['src/utils/slug.ts'], read: [] },
      acceptance: [{ id: 'AC1', text: 'a title splits into lower-case words' }],
      testPlan: {
        files: [
          {
            path: 'test/ticket/DECL-2.test.ts',
            suite: 'DECL-2',
            imports: [{ from: '../../src/utils/slug', names: ['slugWords'] }],
            cases: [
              {
                name: 'splits',
                criterion: 'AC1',
                expect: [{ kind: 'equal', mode: 'deep', actual: "slugWords('A b')", expected: "['a', 'b']" }],
              },
            ],
          },
        ],
      },
      ops: [] as unknown[],
    };
    const findings = async () => {
      writeFileSync(path.join(ws.root, '.tickets/DECL-2.ticket.json'), JSON.stringify(ticket));
      const r = await cli(['validate', '.tickets/DECL-2.ticket.json', '--workspace', ws.root, '--json']);
      return (JSON.parse(r.out) as { findings: { path: string; severity: string; message: string }[] }[])[0]!.findings;
    };
    const before = treeHash(ws.root);
    // Without the op, the module does not exist yet; the ticket writes it, so a plan that tests it
    // is the normal case, not a warning.
    assert.deepEqual(
      (await findings()).filter((f) => f.path.startsWith('$.testPlan')),
      [],
    );
    ticket.ops = [{ op: 'declare', file: 'src/utils/slug.ts', exports: ['function slugWords(title: string): string[]'] }];
    assert.deepEqual(
      (await findings()).filter((f) => f.path.startsWith('$.testPlan')),
      [],
    );
    assert.equal(existsSync(path.join(ws.root, 'src/utils/slug.ts')), false, 'validate lays the declaration in memory only');
    // The declared type is what the plan is held to: a string where it returns string[] is a warning at once.
    ticket.testPlan.files[0]!.cases[0]!.expect[0]!.expected = "'a-b'";
    ticket.testPlan.files[0]!.cases[0]!.expect[0]!.mode = 'strict';
    const impossible = (await findings()).filter((f) => f.path.startsWith('$.testPlan'));
    assert.deepEqual(
      impossible.map((f) => `${f.severity} ${f.path}: ${f.message}`),
      [
        "warning $.testPlan.files[0].cases[0]: \"splits\" expects slugWords('A b') to equal 'a-b', which its declared type cannot hold (TS2345: Argument of type 'string' is not assignable to parameter of type 'string[]'.): a run would find this test wrong",
      ],
    );
    rmSync(path.join(ws.root, '.tickets/DECL-2.ticket.json'));
    assert.equal(treeHash(ws.root), before);
  });

  it('lists every problem of a broken ticket, not just the first, each with its path and what to do', async () => {
    const ticket = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Ticket;
    ticket.scope.read = ['src/nowhere.ts'];
    ticket.scope.write = [...ticket.scope.write, '../outside.ts'];
    ticket.testPlan.files[0]!.path = 'src/index.ts';
    writeFileSync(path.join(ws.root, '.tickets/BROKEN.ticket.json'), JSON.stringify(ticket));
    const r = await cli(['validate', '.tickets/BROKEN.ticket.json', '--workspace', ws.root, '--json']);
    assert.equal(r.code, 3);
    const [result] = JSON.parse(r.out) as {
      ticket: string;
      ok: boolean;
      findings: { path: string; severity: string; message: string }[];
    }[];
    assert.equal(result!.ok, false);
    const at = (p: string) => result!.findings.find((f) => f.path === p);
    assert.match(at('$.testPlan.files[0].path')?.message ?? '', /"src\/index\.ts" is an existing source file/);
    assert.match(at(`$.scope.write[${ticket.scope.write.length - 1}]`)?.message ?? '', /outside/);
    assert.match(at('$.scope.read[0]')?.message ?? '', /"src\/nowhere\.ts" does not exist in the workspace\. Fix the path or remove it\./);
    assert.ok(result!.findings.every((f) => f.severity === 'error'));
  });

  it('a ticket that is not valid JSON, or misses a field, is an error at the place it is', async () => {
    writeFileSync(path.join(ws.root, '.tickets/BAD.ticket.json'), '{\n  "id": "BAD",\n  "title": "x",\n}');
    const bad = await cli(['validate', '.tickets/BAD.ticket.json', '--workspace', ws.root]);
    assert.equal(bad.code, 3);
    assert.match(bad.out, /BAD\.ticket\.json: error at \$: not valid JSON \(line 4, column 1\)/);
    writeFileSync(path.join(ws.root, '.tickets/THIN.ticket.json'), JSON.stringify({ id: 'THIN', title: 'thin' }));
    const thin = await cli(['validate', '.tickets/THIN.ticket.json', '--workspace', ws.root]);
    assert.equal(thin.code, 3);
    assert.match(thin.out, /error at \$\.acceptance: missing; expected array/);
  });

  it('says nothing of the code the ticket asks for that its tests name, and warns, without failing, on the one import of a name a file it does not write lacks', async () => {
    const r = await cli(['validate', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root]);
    assert.equal(r.code, 0, r.out);
    assert.doesNotMatch(r.out, /summarizePage|warning at \$\.testPlan/);

    const ticket = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-5.ticket.json'), 'utf8')) as Ticket;
    ticket.id = 'ASKED-1';
    ticket.testPlan.files[0]!.imports.push({ from: '../../src/store/postStore', names: ['getPostsPage'] });
    writeFileSync(path.join(ws.root, '.tickets/ASKED-1.ticket.json'), JSON.stringify(ticket, null, 2));
    const wrong = await cli(['validate', '.tickets/ASKED-1.ticket.json', '--workspace', ws.root]);
    rmSync(path.join(ws.root, '.tickets/ASKED-1.ticket.json'));
    assert.equal(wrong.code, 0, wrong.out);
    assert.match(
      wrong.out,
      /warning at \$\.testPlan\.files\[0\]\.imports\[1\]: the rendered test\/ticket\/BLOG-5\.test\.ts, line \d+:\d+: TS2\d+ .*getPostsPage/,
    );
    assert.doesNotMatch(wrong.out, /summarizePage/);
  });

  it('suggests the refs entry for a symbol or field the ticket names that its scope declares (information: exit 0), and nothing for what is not there', async () => {
    const ticket = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-2.ticket.json'), 'utf8')) as Ticket;
    assert.deepEqual(ticket.refs, [{ symbol: 'Tag', file: 'src/types.ts' }]);
    ticket.refs = [];
    // Named too: listPosts, declared in a file outside the scope, and publishedAt, declared nowhere.
    ticket.description += ' Do not touch listPosts, and leave post.publishedAt for later.';
    writeFileSync(path.join(ws.root, '.tickets/NOREFS.ticket.json'), JSON.stringify(ticket, null, 2));
    const r = await cli(['validate', '.tickets/NOREFS.ticket.json', '--workspace', ws.root, '--json']);
    assert.equal(r.code, 0, r.out);
    const [result] = JSON.parse(r.out) as { findings: { path: string; severity: string; message: string; addRef?: unknown }[] }[];
    const hints = result!.findings.filter((f) => f.severity === 'information');
    const tag = hints.find((f) => (f.addRef as { symbol: string } | undefined)?.symbol === 'Tag');
    assert.ok(tag, JSON.stringify(result!.findings));
    assert.equal(tag.path, '$.title', 'where it is first named: "Migrate Post.tags from slugs to Tag objects"');
    assert.equal(
      tag.message,
      'names Tag, which src/types.ts declares, and refs does not list it: add {"symbol":"Tag","file":"src/types.ts"} to refs, so a run checks it resolves and its signature reaches the Coder',
    );
    assert.deepEqual(tag.addRef, { symbol: 'Tag', file: 'src/types.ts' });
    const suggested = hints.map((f) => (f.addRef as { symbol: string; file: string }).symbol);
    assert.ok(suggested.includes('Post.tags'), suggested.join(' '));
    assert.ok(suggested.includes('getPost') && suggested.includes('postsByTag'), suggested.join(' '));
    for (const absent of ['listPosts', 'post.publishedAt', 'Post.publishedAt'])
      assert.ok(!suggested.includes(absent), `${absent} is not suggested: ${suggested.join(' ')}`);
    const plain = await cli(['validate', '.tickets/NOREFS.ticket.json', '--workspace', ws.root]);
    assert.match(plain.out, /^\.tickets\/NOREFS\.ticket\.json: information at \$\.title: names Tag, which src\/types\.ts declares/m);

    // With its refs, the listed one is not suggested again.
    const listed = JSON.parse((await cli(['validate', '.tickets/BLOG-2.ticket.json', '--workspace', ws.root, '--json'])).out) as {
      findings: { addRef?: { symbol: string } }[];
    }[];
    assert.ok(!listed[0]!.findings.some((f) => f.addRef?.symbol === 'Tag'));
  });

  it('render prints exactly what a run would render, and writes nothing', async () => {
    const before = treeHash(ws.root);
    const r = await cli(['render', '.tickets/BLOG-1.ticket.json', '--workspace', ws.root]);
    assert.equal(r.code, 0, r.err);
    const ticket = parseTicket('.tickets/BLOG-1.ticket.json', readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8'));
    const [file] = materialize(ticket.testPlan, 'node:test', { language: 'ts', moduleKind: 'cjs' });
    assert.equal(r.out, `// ==> ${file!.path} <==\n${file!.content}`);
    assert.equal(existsSync(path.join(ws.root, file!.path)), false);
    assert.equal(treeHash(ws.root), before);
    const broken = await cli(['render', '.tickets/BROKEN.ticket.json', '--workspace', ws.root]);
    assert.equal(broken.code, 3);
    assert.match(broken.err, /error at \$\.scope\.read\[0\]/);
  });
});
