import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EXIT } from '../../../src/cli/main';
import type { RunEvent } from '../../../src/core/schema/events';
import { runDistCli } from '../../support/cliProcess';
import { copyFixtureInGit, git, gitState } from '../../support/gitFixture';
import { gitPrelude, makeAnswerHostile } from '../../support/hostileCode';
import { loadEvents } from '../../support/rungRuns';

/**
 * The workspace's `.git` and editor settings run code outside any sandbox later (the next commit
 * runs a hook, the next `git status` runs `core.fsmonitor`, a folder-open task runs when the
 * editor opens the folder). The CLI is started from another folder, as a user starts it with
 * `--workspace`: what protects them must follow the workspace, not the process's cwd.
 */

const testOutputs = (events: RunEvent[]) => events.flatMap((e) => (e.type === 'tests.ran' ? [e.result.output] : [])).join('\n');

describe("the workspace's .git, from a CLI started outside the workspace", function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixtureInGit>;
  let elsewhere: string;
  let before: string;
  beforeEach(() => {
    ws = copyFixtureInGit();
    makeAnswerHostile(ws.root, 'BLOG-5/attempt1.ts', gitPrelude());
    git(ws.root, 'commit', '-qam', 'a hostile answer');
    before = gitState(ws.root);
    elsewhere = mkdtempSync(path.join(tmpdir(), 'tr-elsewhere-'));
  });
  afterEach(() => {
    ws.dispose();
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('in the sandbox, code under test can plant no git hook, set no core.fsmonitor and write no .vscode task: .git is as it was', async () => {
    // A workspace with editor settings, as most have: its .vscode is read-only in the sandbox.
    mkdirSync(path.join(ws.root, '.vscode'));
    writeFileSync(path.join(ws.root, '.vscode', 'settings.json'), '{}\n');
    git(ws.root, 'add', '-A');
    git(ws.root, 'commit', '-qm', 'editor settings');
    const r = runDistCli(
      [
        'run',
        '.tickets/BLOG-5.ticket.json',
        '--workspace',
        ws.root,
        '--model',
        'scripted',
        '--gates',
        'none',
        '--require-sandbox',
        '--json',
      ],
      { cwd: elsewhere },
    );
    const { runId, state } = JSON.parse(r.stdout) as { runId: string; state: { sandbox?: { on: boolean } } };
    assert.equal(state.sandbox?.on, true, r.stderr);
    const output = testOutputs(await loadEvents(ws.root, runId));
    assert.match(output, /HOSTILE plant git hook: refused \(EROFS\)/, 'the hostile code ran, and was refused');
    assert.match(output, /HOSTILE set fsmonitor: refused \(EROFS\)/);
    assert.match(output, /HOSTILE plant editor task: refused \(EROFS\)/);
    assert.equal(gitState(ws.root), before);
    assert.ok(!existsSync(path.join(ws.root, '.git', 'hooks', 'pre-commit')));
    assert.ok(!existsSync(path.join(ws.root, '.vscode', 'tasks.json')));
    assert.throws(() => git(ws.root, 'config', 'core.fsmonitor'), 'no fsmonitor is set');
    // The attack changed nothing, and the code is BLOG-5's right answer: its pass is the code's.
    assert.equal(r.code, EXIT.passed, r.stderr);
  });

  it('in the sandbox, a .vscode the workspace does not have (no deny can name it) cannot be made either: the tests run in a copy, and the workspace is read-only to them', async () => {
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
    const r = runDistCli(
      [
        'run',
        '.tickets/BLOG-5.ticket.json',
        '--workspace',
        ws.root,
        '--model',
        'scripted',
        '--gates',
        'none',
        '--attempts',
        '1',
        '--require-sandbox',
        '--json',
      ],
      { cwd: elsewhere },
    );
    const { runId, state } = JSON.parse(r.stdout) as { runId: string; state: { sandbox?: { on: boolean } } };
    assert.equal(state.sandbox?.on, true, r.stderr);
    const events = await loadEvents(ws.root, runId);
    // A folder made in a read-only mount: bubblewrap's answer is ENOENT, where a file's write is EROFS.
    assert.match(testOutputs(events), /HOSTILE plant editor task: refused \((EROFS|ENOENT)\)/, 'the hostile code ran, and was refused');
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
    assert.equal(gitState(ws.root), before);
    // The attack changed nothing, and the code is BLOG-5's right answer: its pass is the code's.
    assert.equal(r.code, EXIT.passed, r.stderr);
  });

  it('with no sandbox, the hook, the fsmonitor and the task land, and are put back after the test run, each kept as found under the run store, and the run stops: it cannot pass', async () => {
    // No PATH: bwrap cannot be found, as on a machine without it (and no git: the run's own git checks are skipped).
    const env = { ...process.env, PATH: path.join(elsewhere, 'no-such-bin') };
    const r = runDistCli(
      ['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--gates', 'none', '--attempts', '1', '--json'],
      { cwd: elsewhere, env },
    );
    assert.equal(r.code, EXIT.failed, r.stderr);
    const { runId, state } = JSON.parse(r.stdout) as {
      runId: string;
      state: {
        sandbox?: { on: boolean };
        attempts: { tests?: { status: string; workspaceEdits?: { path: string; putBack?: boolean; keptCopy?: string }[] } }[];
        finished?: { reason: unknown };
      };
    };
    assert.equal(state.sandbox?.on, false);
    assert.equal(state.attempts[0]?.tests?.status, 'error');
    const events = await loadEvents(ws.root, runId);
    assert.match(testOutputs(events), /HOSTILE plant git hook: done/, 'with no sandbox the writes land');
    assert.deepEqual(state.finished?.reason, { kind: 'unattributedWrites', files: ['.git/config', '.git/hooks/pre-commit', '.vscode'] });
    const edits = state.attempts[0]?.tests?.workspaceEdits ?? [];
    assert.equal(edits.length, 3);
    for (const e of edits) {
      assert.equal(e.putBack, true, e.path);
      assert.ok(e.keptCopy && existsSync(path.join(ws.root, e.keptCopy)), e.path);
    }
    assert.equal(gitState(ws.root), before);
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
  });
});
