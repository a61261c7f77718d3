import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runDistCli, startDistCli, until } from '../../support/cliProcess';
import { copyFixture } from '../../support/tempWorkspace';

describe('one run per workspace (dist/cli.js)', function () {
  // Its files share the machine with the rest of the tier, run in parallel: a generous limit.
  this.timeout(300_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());
  const lockFile = () => path.join(ws.root, '.ticket-runner', 'lock');
  const runs = () =>
    existsSync(path.join(ws.root, '.ticket-runner', 'runs')) ? readdirSync(path.join(ws.root, '.ticket-runner', 'runs')) : [];

  it('refuses a second run with exit 3 naming the holder, takes over the lock of a killed run with a warning, and releases it', async () => {
    const first = startDistCli(['run', '.tickets/BLOG-1.ticket.json', '--model', 'scripted', '--workspace', ws.root]);
    await until('the first run to take the lock and start its log', () => existsSync(lockFile()) && runs().length === 1);
    const holder = JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number; host: string; startedAt: string; command: string };
    assert.equal(holder.pid, first.child.pid);
    assert.equal(holder.command, `ticket-runner run .tickets/BLOG-1.ticket.json --model scripted --workspace ${ws.root}`);

    for (const args of [
      ['run', '.tickets/BLOG-3.ticket.json', '--model', 'scripted'],
      ['rollback', runs()[0]!],
    ]) {
      const second = runDistCli([...args, '--workspace', ws.root]);
      assert.equal(second.code, 3, second.stderr);
      assert.equal(
        second.stderr.trimEnd(),
        `ticket-runner: another run holds the lock of this workspace: pid ${holder.pid} on ${holder.host}, started ${holder.startedAt}, running "${holder.command}". Wait for it to end, or stop it (kill ${holder.pid}).`,
      );
    }
    assert.equal(runs().length, 1, 'the refused run wrote no log');

    first.child.kill('SIGKILL');
    await first.done;
    assert.ok(existsSync(lockFile()), 'kill -9 leaves the lock behind');

    const after = runDistCli(['run', '.tickets/BLOG-3.ticket.json', '--model', 'scripted', '--workspace', ws.root]);
    assert.equal(after.code, 2, after.stderr);
    assert.match(
      after.stderr,
      new RegExp(
        `^warning: took over a stale lock: pid ${holder.pid} on ${holder.host}, started ${holder.startedAt}, .*and that process is gone$`,
        'm',
      ),
    );
    assert.equal(runs().length, 2);
    assert.equal(existsSync(lockFile()), false, 'a finished run releases the lock');
  });
});
