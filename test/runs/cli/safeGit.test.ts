import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    const r = runDistCli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--gates', 'none', '--require-sandbox', '--json'], { cwd: elsewhere });
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

  it('in the sandbox, a .vscode the workspace does not have (no deny can name it) is put back after the test run, and the run cannot pass', async () => {
    // The runtime denies only what is there; a folder the tests create is the side-effect check's.
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
    const scriptFile = path.join(ws.root, '.tickets', 'BLOG-5.script.json');
    const script = JSON.parse(readFileSync(scriptFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(scriptFile, JSON.stringify({ ...script, debugger: [{ structured: { kind: 'code', claim: 'The code writes editor tasks.', evidence: [{ source: 'testOutput', quote: 'so this run cannot pass' }], brief: 'Do not write .vscode.' } }] }));
    const r = runDistCli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--gates', 'none', '--attempts', '1', '--require-sandbox', '--json'], { cwd: elsewhere });
    assert.equal(r.code, EXIT.failed, r.stderr);
    const { runId, state } = JSON.parse(r.stdout) as { runId: string; state: { sandbox?: { on: boolean } } };
    assert.equal(state.sandbox?.on, true, r.stderr);
    const events = await loadEvents(ws.root, runId);
    assert.match(testOutputs(events), /HOSTILE plant editor task: done/, 'the folder was not there to deny');
    const ran = events.find((e) => e.type === 'tests.ran');
    assert.ok(ran?.type === 'tests.ran');
    assert.deepEqual((ran.result.sideEffects ?? []).filter((e) => e.path.startsWith('.vscode')), [{ path: '.vscode/', change: 'created', restored: true }]);
    assert.match(ran.result.output, /runs outside any sandbox, so this run cannot pass: created \.vscode\//);
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
    assert.equal(gitState(ws.root), before);
  });

  it('with no sandbox, the hook, the fsmonitor and the task are put back after the test run, and the run cannot pass', async () => {
    // No PATH: bwrap cannot be found, as on a machine without it (and no git: the run's own git checks are skipped).
    const env = { ...process.env, PATH: path.join(elsewhere, 'no-such-bin') };
    const scriptFile = path.join(ws.root, '.tickets', 'BLOG-5.script.json');
    const script = JSON.parse(readFileSync(scriptFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(scriptFile, JSON.stringify({ ...script, debugger: [{ structured: { kind: 'code', claim: 'The code writes git hooks and config.', evidence: [{ source: 'testOutput', quote: 'so this run cannot pass' }], brief: 'Do not write .git or .vscode.' } }] }));
    const r = runDistCli(['run', '.tickets/BLOG-5.ticket.json', '--workspace', ws.root, '--model', 'scripted', '--gates', 'none', '--attempts', '1', '--json'], { cwd: elsewhere, env });
    assert.equal(r.code, EXIT.failed, r.stderr);
    const { runId, state } = JSON.parse(r.stdout) as { runId: string; state: { sandbox?: { on: boolean }; attempts: { tests?: { status: string } }[] } };
    assert.equal(state.sandbox?.on, false);
    assert.equal(state.attempts[0]?.tests?.status, 'failed');
    const events = await loadEvents(ws.root, runId);
    assert.match(testOutputs(events), /HOSTILE plant git hook: done/, 'with no sandbox the writes land');
    const ran = events.find((e) => e.type === 'tests.ran');
    assert.ok(ran?.type === 'tests.ran');
    assert.deepEqual(
      (ran.result.sideEffects ?? []).filter((s) => /^\.git\/|^\.vscode\//.test(s.path)),
      [
        { path: '.git/config', change: 'modified', restored: true },
        { path: '.git/hooks/pre-commit', change: 'created', restored: true },
        { path: '.vscode/', change: 'created', restored: true },
      ],
    );
    assert.match(ran.result.output, /so this run cannot pass: .*\.git\/hooks\/pre-commit/);
    assert.equal(gitState(ws.root), before);
    assert.ok(!existsSync(path.join(ws.root, '.vscode')));
  });
});
