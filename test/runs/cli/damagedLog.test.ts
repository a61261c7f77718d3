import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runDistCli, STACK_LINE } from '../../support/cliProcess';
import { copyFixture } from '../../support/tempWorkspace';

describe('a damaged run log (dist/cli.js)', function () {
  // Two whole runs in the hook: a loaded machine has taken more than two minutes for them.
  this.timeout(400_000);
  let ws: ReturnType<typeof copyFixture>;
  let damaged: string;
  let intact: string;
  const cli = (...args: string[]) => runDistCli([...args, '--workspace', ws.root]);
  const logOf = (runId: string) => path.join(ws.root, '.ticket-runner', 'runs', runId, 'events.jsonl');

  before(() => {
    ws = copyFixture();
    const ids = [];
    for (let i = 0; i < 2; i++) {
      const r = cli('run', '.tickets/BLOG-3.ticket.json', '--model', 'scripted', '--json');
      assert.equal(r.code, 2, r.stderr);
      ids.push((JSON.parse(r.stdout) as { runId: string }).runId);
      // The next run starts from the same workspace as the first.
      assert.equal(cli('rollback', ids[i]!).code, 0);
    }
    [damaged, intact] = ids as [string, string];
    // A line in the middle cut short: nothing append-only writes that.
    const lines = readFileSync(logOf(damaged), 'utf8').split('\n');
    lines[1] = lines[1]!.slice(0, 40);
    writeFileSync(logOf(damaged), lines.join('\n'));
  });
  after(() => ws.dispose());

  it('list skips that run with a warning and lists the rest', () => {
    const r = cli('list', '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      (JSON.parse(r.stdout) as { runId: string }[]).map((x) => x.runId),
      [intact],
    );
    assert.match(r.stderr, new RegExp(`^warning: run ${damaged} skipped: .*events\\.jsonl: line 2 is not a valid event`, 'm'));
    const text = cli('list');
    assert.equal(text.code, 0);
    assert.match(text.stdout, new RegExp(intact));
    assert.doesNotMatch(text.stdout, new RegExp(damaged));
  });

  it('show, resolve, resume and rollback exit 3 naming the file and the line, and append nothing', () => {
    const before = readFileSync(logOf(damaged), 'utf8');
    for (const args of [
      ['show', damaged],
      ['show', logOf(damaged)],
      ['resolve', damaged, 'reject', '--reason', 'no'],
      ['resume', damaged],
      ['rollback', damaged],
    ]) {
      const r = cli(...args);
      assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, STACK_LINE);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.ok(r.stderr.includes(`${logOf(damaged)}: line 2 is not a valid event`), r.stderr);
    }
    assert.equal(readFileSync(logOf(damaged), 'utf8'), before);
  });

  it('a torn last line: show reads the run with a warning; commands that append refuse, naming the line', () => {
    const text = readFileSync(logOf(intact), 'utf8');
    const lines = text.trimEnd().split('\n');
    const torn = text.slice(0, text.length - 30);
    writeFileSync(logOf(intact), torn);
    const shown = cli('show', intact);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, new RegExp(`the last line \\(${lines.length}\\) of the log is torn`));
    const r = cli('rollback', intact);
    assert.equal(r.code, 3);
    assert.ok(r.stderr.includes(`${logOf(intact)}: line ${lines.length} is cut short`), r.stderr);
    assert.equal(readFileSync(logOf(intact), 'utf8'), torn, 'nothing glued onto the torn line');
  });
});
