import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../../src/cli/main';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { cli } from '../../support/cli';
import { runDistCli, STACK_LINE } from '../../support/cliProcess';
import { copyFixture, treeHash } from '../../support/tempWorkspace';

describe("ticket-runner draft: a ticket from an issue's text, shown and never run", function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  let blog1: Record<string, unknown>;
  before(() => {
    ws = copyFixture();
    blog1 = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(ws.root, 'issue.md'), '# perPage above 100\n\nGET /posts caps perPage at 100 silently; answer 400 instead.\n');
    writeFileSync(
      path.join(ws.root, 'good.script.json'),
      JSON.stringify({ drafter: [{ text: 'Here you go: a ticket.' }, { structured: blog1 }] }),
    );
    writeFileSync(
      path.join(ws.root, 'bad.script.json'),
      JSON.stringify({ drafter: [{ text: 'no' }, { text: '{"id": "X"}' }, { structured: 'a string' }] }),
    );
    writeFileSync(
      path.join(ws.root, 'prose.script.json'),
      JSON.stringify({
        drafter: [{ text: `Happy to help! The ticket:\n\n\`\`\`json\n${JSON.stringify(blog1)}\n\`\`\`\nShall I run it?` }],
      }),
    );
    writeFileSync(path.join(ws.root, 'down.script.json'), JSON.stringify({ drafter: [{ fault: 'transportError' }] }));
  });
  after(() => ws.dispose());

  it('prints the draft, its findings and its rendered tests; --out saves it (never over a ticket) and nothing runs', async () => {
    const before = treeHash(ws.root);
    const shown = await cli([
      'draft',
      '--from',
      'issue.md',
      '--id',
      'BLOG-50',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--script',
      'good.script.json',
    ]);
    assert.equal(shown.code, EXIT.passed, shown.err);
    assert.equal(parseTicket('.tickets/BLOG-50.ticket.json', shown.out).id, 'BLOG-50');
    assert.match(shown.err, /an answer was refused and asked again: the answer is not a JSON object and called no tool/);
    assert.match(
      shown.err,
      /^recovery: rung 2 \(a malformed answer\): answer 1 was refused \(the answer is not a JSON object and called no tool\); asking again with the reason$/m,
    );
    assert.match(shown.err, /^the draft took 2 model calls, \$0\.0000, 1 recovery step$/m);
    assert.match(shown.err, /\/\/ ==> test\/ticket\/BLOG-1\.test\.ts \(rendered, not written\) <==\n[\s\S]*rejects perPage above 100/);
    assert.equal(treeHash(ws.root), before, 'shown only: nothing written');

    const saved = await cli([
      'draft',
      '--from',
      'issue.md',
      '--id',
      'BLOG-50',
      '--out',
      '.tickets/BLOG-50.ticket.yaml',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--script',
      'good.script.json',
    ]);
    assert.equal(saved.code, EXIT.passed, saved.err);
    assert.match(saved.err, /wrote \.tickets\/BLOG-50\.ticket\.yaml; it has not run/);
    const text = readFileSync(path.join(ws.root, '.tickets/BLOG-50.ticket.yaml'), 'utf8');
    assert.equal(parseTicket('.tickets/BLOG-50.ticket.yaml', text).title, blog1.title);
    assert.equal(existsSync(path.join(ws.root, '.ticket-runner', 'runs')), false, 'no run was started');
    assert.equal(existsSync(path.join(ws.root, 'test/ticket/BLOG-1.test.ts')), false, 'no test was materialized');
    assert.equal((await cli(['validate', '.tickets/BLOG-50.ticket.yaml', '--workspace', ws.root])).code, EXIT.passed);

    const again = await cli([
      'draft',
      '--from',
      'issue.md',
      '--id',
      'BLOG-50',
      '--out',
      '.tickets/BLOG-50.ticket.yaml',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--script',
      'good.script.json',
    ]);
    assert.equal(again.code, EXIT.error);
    assert.equal(
      again.err,
      'ticket-runner: .tickets/BLOG-50.ticket.yaml already exists: a draft is never written over a ticket; pick another --out',
    );
    assert.equal(readFileSync(path.join(ws.root, '.tickets/BLOG-50.ticket.yaml'), 'utf8'), text);
  });

  it('bad model answers, a missing script or issue: one line, exit 3, no stack trace (the built CLI)', () => {
    const bad = runDistCli([
      'draft',
      '--from',
      'issue.md',
      '--id',
      'D-1',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--script',
      'bad.script.json',
    ]);
    assert.equal(bad.code, EXIT.error, bad.stderr);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(
      bad.stderr,
      /^ticket-runner: the model gave no valid ticket in 3 asks \(1: the answer is not a JSON object and called no tool; 2: the ticket does not match its schema: .*; 3: the answer is not a JSON object and called no tool\)/,
    );
    assert.equal(bad.stdout, '');
    for (const [args, message] of [
      [
        ['--from', 'issue.md', '--id', 'D-1', '--model', 'scripted'],
        /the scripted model needs recorded answers in \.tickets\/D-1\.script\.json/,
      ],
      [['--id', 'D-1', '--model', 'scripted', '--script', 'good.script.json'], /draft needs --from FILE/],
      [['--from', 'nowhere.md', '--id', 'D-1', '--model', 'scripted', '--script', 'good.script.json'], /no file nowhere\.md to draft from/],
      [['--from', 'issue.md', '--model', 'scripted', '--script', 'good.script.json'], /draft needs --id/],
      [
        ['--from', 'issue.md', '--id', 'D-1', '--format', 'toml', '--model', 'scripted', '--script', 'good.script.json'],
        /--format must be json or yaml, got "toml"/,
      ],
    ] as const) {
      const r = runDistCli(['draft', ...args, '--workspace', ws.root]);
      assert.equal(r.code, EXIT.error, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.doesNotMatch(r.stderr, STACK_LINE);
    }
    assert.match(
      runDistCli(['validate', '.tickets/BLOG-1.ticket.json', '--script', 'x', '--workspace', ws.root]).stderr,
      /--script is an option of draft, not of validate/,
    );
  });

  it('prose around the JSON is taken out and said; a model that is down: one line, nothing written, the issue file kept (the built CLI)', () => {
    const prose = runDistCli([
      'draft',
      '--from',
      'issue.md',
      '--id',
      'D-3',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--script',
      'prose.script.json',
    ]);
    assert.equal(prose.code, EXIT.passed, prose.stderr);
    assert.equal(parseTicket('.tickets/D-3.ticket.json', prose.stdout).id, 'D-3');
    assert.match(
      prose.stderr,
      /^recovery: answer 1 was text: its one JSON object was taken out of it \(\d+ characters around it dropped\)$/m,
    );
    assert.match(prose.stderr, /^the draft took 1 model call, \$0\.0000, 1 recovery step$/m);

    const before = treeHash(ws.root);
    const down = runDistCli([
      'draft',
      '--from',
      'issue.md',
      '--id',
      'D-4',
      '--out',
      '.tickets/D-4.ticket.json',
      '--workspace',
      ws.root,
      '--model',
      'scripted',
      '--script',
      'down.script.json',
    ]);
    assert.equal(down.code, EXIT.error, down.stderr);
    assert.equal(
      down.stderr.trim(),
      'ticket-runner: the model failed while drafting (scripted model: recorded transport failure (drafter #1)); 1 model call, $0.0000, no rung fired; nothing was written: run the draft again',
    );
    assert.equal(down.stdout, '');
    assert.equal(existsSync(path.join(ws.root, '.tickets/D-4.ticket.json')), false);
    assert.equal(treeHash(ws.root), before, 'nothing written; issue.md is as it was');
  });
});
