import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { EXIT } from '../../../src/cli/main';
import { cli } from '../../support/cli';
import { runDistCli, STACK_LINE } from '../../support/cliProcess';
import { copyFixture, treeHash } from '../../support/tempWorkspace';
import { BLOG1_YAML } from '../../support/yamlTickets';

type Ran = {
  runId: string;
  state: { status: string; finished?: { reason: { kind: string } }; attempts: unknown[]; modelCalls: { role: string }[] };
};

/** A fixture ticket as YAML: its JSON twin's value, with a comment the correction must keep. */
function asYaml(ws: string, id: string): string {
  const value = JSON.parse(readFileSync(path.join(ws, '.tickets', `${id}.ticket.json`), 'utf8')) as Record<string, unknown>;
  delete value.$schema;
  return `# ${id}, written as YAML.\n${stringify(value, { lineWidth: 0 })}`;
}

describe('tickets written as YAML, through the CLI', function () {
  this.timeout(240_000);

  it('hostile YAML tickets get one line each, with line and column, from the built CLI: no stack trace', () => {
    const ws = copyFixture();
    try {
      const bad: Record<string, string> = {
        'MALFORMED.ticket.yaml': 'id: MALFORMED\ntitle: [never closed\n',
        'DUP.ticket.yaml': BLOG1_YAML.replace('title: Reject', 'title: Accept\ntitle: Reject'),
        'BOMB.ticket.yaml':
          'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n',
        'TAB.ticket.yaml': BLOG1_YAML.replace('  write: [src/handlers/posts.ts]', '\twrite: [src/handlers/posts.ts]'),
      };
      for (const [name, text] of Object.entries(bad)) writeFileSync(path.join(ws.root, '.tickets', name), text);
      for (const [name, expected] of [
        ['MALFORMED.ticket.yaml', /^\.tickets\/MALFORMED\.ticket\.yaml: error at \$: not valid YAML \(line \d+, column \d+\): .+$/],
        [
          'DUP.ticket.yaml',
          /^\.tickets\/DUP\.ticket\.yaml: error at \$: not valid YAML \(line 4, column 1\): a key appears twice in the same mapping: keep one$/,
        ],
        [
          'BOMB.ticket.yaml',
          /^\.tickets\/BOMB\.ticket\.yaml: error at \$: not valid YAML \(line 2, column 8\): an alias \(\*a\) repeats another value: write the value out; anchors and aliases are not allowed in a ticket$/,
        ],
        [
          'TAB.ticket.yaml',
          /^\.tickets\/TAB\.ticket\.yaml: error at \$: not valid YAML \(line 9, column 1\): a tab indents this line: YAML indents with spaces only$/,
        ],
      ] as const) {
        const r = runDistCli(['validate', `.tickets/${name}`, '--workspace', ws.root]);
        assert.equal(r.code, EXIT.error, `${name}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout.trim(), expected);
        assert.equal(r.stdout.trim().split('\n').length, 1, r.stdout);
        assert.doesNotMatch(r.stdout + r.stderr, STACK_LINE);
      }
      const run = runDistCli(['run', '.tickets/DUP.ticket.yaml', '--workspace', ws.root, '--model', 'scripted']);
      assert.equal(run.code, EXIT.error);
      assert.match(
        run.stderr.trim(),
        /^ticket-runner: \.tickets\/DUP\.ticket\.yaml: invalid ticket: at \$: not valid YAML \(line 4, column 1\): a key appears twice/,
      );
      assert.doesNotMatch(run.stderr, STACK_LINE);
    } finally {
      ws.dispose();
    }
  });

  it('BLOG-1 as YAML validates, renders and runs to the same outcome as its JSON twin; batch and tickets find it', async () => {
    const json = copyFixture();
    const yaml = copyFixture();
    try {
      rmSync(path.join(yaml.root, '.tickets/BLOG-1.ticket.json'));
      writeFileSync(path.join(yaml.root, '.tickets/BLOG-1.ticket.yaml'), BLOG1_YAML);
      const before = treeHash(yaml.root);
      const valid = await cli(['validate', '.tickets/BLOG-1.ticket.yaml', '--workspace', yaml.root]);
      assert.equal(valid.code, EXIT.passed, valid.out);
      assert.equal(valid.out, '.tickets/BLOG-1.ticket.yaml: ok');
      const renderedYaml = await cli(['render', '.tickets/BLOG-1.ticket.yaml', '--workspace', yaml.root]);
      const renderedJson = await cli(['render', '.tickets/BLOG-1.ticket.json', '--workspace', json.root]);
      assert.equal(renderedYaml.code, EXIT.passed, renderedYaml.err);
      assert.equal(renderedYaml.out, renderedJson.out, 'the same tests, byte for byte');
      assert.equal(treeHash(yaml.root), before, 'validate and render write nothing');

      const listed = JSON.parse((await cli(['tickets', '.tickets', '--workspace', yaml.root])).out) as string[];
      assert.ok(listed.includes('.tickets/BLOG-1.ticket.yaml'), listed.join(' '));
      assert.deepEqual(JSON.parse((await cli(['tickets', '.tickets/BLOG-1.*', '--workspace', yaml.root])).out), [
        '.tickets/BLOG-1.script.json',
        '.tickets/BLOG-1.ticket.yaml',
      ]);

      const runYaml = await cli([
        'run',
        '.tickets/BLOG-1.ticket.yaml',
        '--workspace',
        yaml.root,
        '--model',
        'scripted',
        '--gates',
        'none',
        '--json',
      ]);
      const runJson = await cli([
        'run',
        '.tickets/BLOG-1.ticket.json',
        '--workspace',
        json.root,
        '--model',
        'scripted',
        '--gates',
        'none',
        '--json',
      ]);
      assert.equal(runYaml.code, EXIT.passed, runYaml.err);
      assert.equal(runYaml.code, runJson.code);
      const [y, j] = [JSON.parse(runYaml.out) as Ran, JSON.parse(runJson.out) as Ran];
      assert.equal(y.state.status, 'passed');
      assert.equal(y.state.status, j.state.status);
      assert.equal(y.state.attempts.length, j.state.attempts.length);
      assert.deepEqual(
        y.state.modelCalls.map((c) => c.role),
        j.state.modelCalls.map((c) => c.role),
      );
      for (const f of ['src/handlers/posts.ts', 'test/ticket/BLOG-1.test.ts'])
        assert.equal(readFileSync(path.join(yaml.root, f), 'utf8'), readFileSync(path.join(json.root, f), 'utf8'), f);
    } finally {
      json.dispose();
      yaml.dispose();
    }
  });

  it("an accepted ticket correction edits the YAML ticket: exactly the Debugger's replacement, the rest of the file as written; the run goes on as its JSON twin's", async () => {
    const ws = copyFixture();
    const twin = copyFixture();
    try {
      const original = asYaml(ws.root, 'BLOG-3');
      rmSync(path.join(ws.root, '.tickets/BLOG-3.ticket.json'));
      writeFileSync(path.join(ws.root, '.tickets/BLOG-3.ticket.yaml'), original);
      const decide = async (root: string, ticket: string) => {
        const needs = await cli(['run', ticket, '--workspace', root, '--model', 'scripted', '--json']);
        assert.equal(needs.code, EXIT.needsOperator, needs.err);
        return cli(['resolve', (JSON.parse(needs.out) as Ran).runId, 'accept', '--workspace', root, '--model', 'scripted', '--json']);
      };
      const accepted = await decide(ws.root, '.tickets/BLOG-3.ticket.yaml');
      // What Accept writes is shown first, as a diff of the YAML itself.
      assert.match(
        accepted.err,
        /Accept would rewrite \.tickets\/BLOG-3\.ticket\.yaml:[\s\S]*-  - symbol: Post\.publishedAt\n\s*\+  - symbol: Post\.createdAt/,
      );
      const after = readFileSync(path.join(ws.root, '.tickets/BLOG-3.ticket.yaml'), 'utf8');
      // BLOG-3's script has the Debugger replace "publishedAt" with "createdAt" in the ticket.
      assert.equal(after, original.split('publishedAt').join('createdAt'));

      const acceptedJson = await decide(twin.root, '.tickets/BLOG-3.ticket.json');
      const edited = JSON.parse(readFileSync(path.join(twin.root, '.tickets/BLOG-3.ticket.json'), 'utf8')) as Record<string, unknown>;
      delete edited.$schema;
      assert.deepEqual(parse(after), edited, 'the same ticket as the JSON twin after its correction');
      assert.equal(accepted.code, acceptedJson.code);
      const [y, j] = [JSON.parse(accepted.out) as Ran, JSON.parse(acceptedJson.out) as Ran];
      assert.deepEqual(
        [y.state.status, y.state.finished?.reason.kind, y.state.attempts.length],
        [j.state.status, j.state.finished?.reason.kind, j.state.attempts.length],
      );
    } finally {
      ws.dispose();
      twin.dispose();
    }
  });
});
