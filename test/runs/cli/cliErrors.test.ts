import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runDistCli, STACK_LINE, type CliResult } from '../../support/cliProcess';
import { copyFixture } from '../../support/tempWorkspace';

/** Exactly one line on stderr, exit 3, no stack trace, and the line says what `want` says. */
function oneClearLine(r: CliResult, want: RegExp): void {
  assert.equal(r.code, 3, `exit code 3, got ${r.code}: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, STACK_LINE, 'no stack trace');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${r.stderr}`);
  assert.match(lines[0]!, /^ticket-runner: /);
  assert.match(lines[0]!, want);
}

describe('ticket-runner errors (dist/cli.js)', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());
  const cli = (...args: string[]) => runDistCli([...args, '--workspace', ws.root], { timeoutMs: 20_000 });

  it('refuses a ticket path that is a folder', () => {
    oneClearLine(cli('run', '.tickets'), /\.tickets is a folder, not a ticket/);
  });

  it('refuses a FIFO as the ticket at once, instead of hanging on it', () => {
    execFileSync('mkfifo', [path.join(ws.root, '.tickets', 'PIPE.ticket.json')]);
    const r = cli('run', '.tickets/PIPE.ticket.json');
    assert.equal(r.signal, null, 'it ended on its own, before the time limit');
    oneClearLine(r, /PIPE\.ticket\.json is not a regular file \(a FIFO, a device or a socket\)/);
  });

  it('refuses a device as the ticket', () => {
    oneClearLine(cli('run', '/dev/zero'), /escapes the workspace|not a regular file/);
    execFileSync('ln', ['-s', '/dev/zero', path.join(ws.root, '.tickets', 'ZERO.ticket.json')]);
    oneClearLine(cli('run', '.tickets/ZERO.ticket.json'), /ZERO\.ticket\.json is not a regular file/);
  });

  it('refuses a ticket over 1 MB before reading it, and writes no run', () => {
    const t = JSON.parse(readFileSync(path.join(ws.root, '.tickets', 'BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
    t.id = 'HUGE-1';
    t.description = 'x'.repeat(2 * 1024 * 1024);
    writeFileSync(path.join(ws.root, '.tickets', 'HUGE-1.ticket.json'), JSON.stringify(t));
    oneClearLine(cli('run', '.tickets/HUGE-1.ticket.json'), /HUGE-1\.ticket\.json is 2\.0 MB; a ticket may be at most 1 MB/);
    assert.equal(existsSync(path.join(ws.root, '.ticket-runner', 'runs')), false);
  });

  it('says "expected string, got number" for a wrong type, not "missing"', () => {
    const t = JSON.parse(readFileSync(path.join(ws.root, '.tickets', 'BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
    t.id = 'TYPE-1';
    t.title = 42;
    writeFileSync(path.join(ws.root, '.tickets', 'TYPE-1.ticket.json'), JSON.stringify(t));
    oneClearLine(
      cli('run', '.tickets/TYPE-1.ticket.json'),
      /TYPE-1\.ticket\.json: invalid ticket: at \$\.title: expected string, got number$/,
    );
  });

  it('names an unknown run id for show, rollback, resolve and resume', () => {
    for (const args of [
      ['show', 'nope-1'],
      ['rollback', 'nope-1'],
      ['resolve', 'nope-1', 'accept'],
      ['resume', 'nope-1'],
    ]) {
      oneClearLine(cli(...args), /no run "nope-1" in .*: see ticket-runner list/);
    }
    oneClearLine(cli('show', '../../etc'), /"\.\.\/\.\.\/etc" is not a run id/);
  });

  it('says what a bad resolve verb should be', () => {
    oneClearLine(cli('resolve', 'any-run', 'maybe'), /usage: ticket-runner resolve <runId> accept\|reject/);
  });

  it('says what is wrong with a missing --workspace value or folder', () => {
    oneClearLine(runDistCli(['list', '--workspace']), /Option '--workspace <value>' argument missing/);
    oneClearLine(runDistCli(['list', '--workspace', path.join(ws.root, 'no-such-folder')]), /--workspace .*no-such-folder is not a folder/);
  });

  it('turns an unexpected error into one line and a crash report under .ticket-runner/', () => {
    // Hostile state no code path expects: the runs folder is a file.
    mkdirSync(path.join(ws.root, '.ticket-runner'), { recursive: true });
    writeFileSync(path.join(ws.root, '.ticket-runner', 'runs'), 'not a folder');
    try {
      const r = cli('list');
      oneClearLine(
        r,
        /unexpected error: .*ENOTDIR.*A crash report with the details is at .*\.ticket-runner\/crash-.*\.txt; please report it\.$/,
      );
      const report = /at (\S+\.txt);/.exec(r.stderr)![1]!;
      assert.ok(report.startsWith(path.join(ws.root, '.ticket-runner') + path.sep));
      const text = readFileSync(report, 'utf8');
      assert.match(text, /command: ticket-runner list --workspace/);
      assert.match(text, STACK_LINE, 'the stack is in the report');
    } finally {
      rmSync(path.join(ws.root, '.ticket-runner'), { recursive: true, force: true });
    }
  });
});
