import { strict as assert } from 'node:assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core';
import { thisHost } from '../../../src/node/store/processAlive';
import { LOCK_FILE, WorkspaceLockedError, type LockHolder } from '../../../src/node/store/workspaceLock';
import { gitState } from '../../support/gitFixture';
import { filesUnder, gitPrelude, hostilePrelude, listener, makeAnswerHostile } from '../../support/hostileCode';
import { CANARIES } from '../canaries';
import { whyAttemptFailed } from '../../../src/core/run/views/words';
import { abs, api, folder, messagesDuring, pageShown, runIds, withSettings } from './host';

const runTicket = (ticket: string) =>
  vscode.commands.executeCommand<RunResult | undefined>('ticketRunner.runTicket', vscode.Uri.file(abs(ticket)));
const holderLock = (pid: number): LockHolder => ({
  pid,
  host: thisHost(),
  startedAt: new Date().toISOString(),
  command: 'ticket-runner run .tickets/BLOG-3.ticket.json',
});
const writeLock = (h: LockHolder) => writeFileSync(abs(LOCK_FILE), JSON.stringify(h) + '\n');

describe('a safe workspace, from the editor', () => {
  it("a run started here cannot plant a git hook, a core.fsmonitor or a .vscode task: the workspace's .git is as it was", async function () {
    this.timeout(240_000);
    const root = folder().uri.fsPath;
    // The extension host does not run in the workspace: the sandbox's denies must follow the workspace, not its cwd.
    assert.notEqual(process.cwd(), root);
    const answerFile = abs('.tickets/answers/BLOG-5/attempt1.ts');
    const answer = readFileSync(answerFile, 'utf8');
    makeAnswerHostile(root, 'BLOG-5/attempt1.ts', gitPrelude());
    // Editor settings, as most workspaces have: its .vscode is read-only in the sandbox.
    const hadEditorSettings = existsSync(abs('.vscode'));
    if (!hadEditorSettings) {
      mkdirSync(abs('.vscode'));
      writeFileSync(abs('.vscode/settings.json'), '{}\n');
    }
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: root, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'the fixture, with a hostile answer');
    const before = gitState(root);
    try {
      const result = await withSettings({ gates: [], requireSandbox: true }, () => runTicket('.tickets/BLOG-5.ticket.json'));
      assert.ok(result, 'the run started (the sandbox is required, and it started)');
      const events = readFileSync(abs(`.ticket-runner/runs/${result.runId}/events.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; result?: { output: string } });
      const output = events.flatMap((e) => (e.type === 'tests.ran' ? [e.result!.output] : [])).join('\n');
      assert.match(output, /HOSTILE plant git hook: refused \(EROFS\)/, 'the hostile code ran, and was refused');
      assert.match(output, /HOSTILE set fsmonitor: refused \(EROFS\)/);
      assert.match(output, /HOSTILE plant editor task: refused \(EROFS\)/);
      assert.equal(gitState(root), before);
      assert.ok(!existsSync(path.join(root, '.git', 'hooks', 'pre-commit')));
      assert.ok(!existsSync(abs('.vscode/tasks.json')));
      assert.equal(result.state.status, 'passed', 'the attack changed nothing, and the code is the right answer');
      await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
    } finally {
      writeFileSync(answerFile, answer);
      if (!hadEditorSettings) rmSync(abs('.vscode'), { recursive: true, force: true });
      rmSync(path.join(root, '.git'), { recursive: true, force: true });
    }
  });

  it('a run started here executes its tests in the OS sandbox: no write outside the workspace, no secret in .ticket-runner/', async function () {
    this.timeout(240_000);
    // The canaries must really be in this host's environment, or the test below proves nothing.
    for (const [k, v] of Object.entries(CANARIES)) assert.equal(process.env[k], v, `${k} reached the extension host`);
    const escaped = path.join(homedir(), `tr-escaped-${process.pid}.txt`);
    const net = await listener();
    makeAnswerHostile(
      folder().uri.fsPath,
      'BLOG-5/attempt1.ts',
      hostilePrelude({
        secretFile: path.join(homedir(), '.ssh', 'tr-no-such-key'),
        port: net.port,
        renderedTest: 'test/ticket/BLOG-5.test.ts',
        outsideFile: escaped,
      }),
    );
    let result: RunResult | undefined;
    try {
      result = await withSettings({ gates: [], requireSandbox: true }, () => runTicket('.tickets/BLOG-5.ticket.json'));
    } finally {
      const wrote = existsSync(escaped);
      rmSync(escaped, { force: true });
      await new Promise((resolve) => net.server.close(resolve));
      assert.ok(!wrote, `the code under test wrote ${escaped}`);
    }
    assert.ok(result, 'the run started (the sandbox is required, and it started)');
    const why = result.state.attempts.map((a) => ({
      attempt: a.n,
      failed: whyAttemptFailed(a),
      diagnostics: a.diagnostics?.diagnostics,
      lint: a.lint?.problems,
      tests: a.tests?.cases.filter((c) => c.status === 'failed'),
    }));
    assert.equal(result.state.status, 'passed', JSON.stringify({ finished: result.state.finished, why }));
    const logFile = abs(`.ticket-runner/runs/${result.runId}/events.jsonl`);
    const events = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; sandbox?: unknown; result?: { output: string } });
    assert.deepEqual([events[0]!.type, events[0]!.sandbox], ['run.started', { on: true, detail: 'bubblewrap' }]);
    const output = events.flatMap((e) => (e.type === 'tests.ran' ? [e.result!.output] : [])).join('\n');
    // The hostile code did run, and what it tried is on record.
    assert.match(output, /HOSTILE write outside: refused \(EROFS\)/);
    assert.match(output, /HOSTILE env: done \{/);
    assert.match(output, /HOSTILE parent env: refused/);
    assert.match(output, /HOSTILE socket: refused/);
    assert.equal(net.connections(), 0);
    for (const [name, value] of Object.entries(CANARIES)) {
      const leaks = filesUnder(abs('.ticket-runner')).filter((f) => f.text.includes(value));
      assert.deepEqual(
        leaks.map((f) => f.file),
        [],
        `${name}'s value appears nowhere in .ticket-runner/`,
      );
    }
    // The inspector and the webview say so.
    const a = await api();
    const run = a.tree.getChildren().find((r) => r.runId === result.runId)!;
    const first = a.tree.getChildren(run)[0]!;
    assert.deepEqual([first.contextValue, first.label], ['sandbox', 'sandbox: on (bubblewrap)']);
    assert.ok(a.panels.panelOf(result.runId), 'the run opened in its webview (the driver reads its sandbox line)');
    assert.ok(await pageShown(result.runId), "the run's page was sent its state within a minute");
    await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
  });

  it("a run while another one holds the lock shows the CLI's message, naming the holder, and starts nothing", async () => {
    const holder: ChildProcess = spawn('sleep', ['300'], { stdio: 'ignore' });
    const lock = holderLock(holder.pid!);
    mkdirSync(abs('.ticket-runner'), { recursive: true });
    writeLock(lock);
    const before = runIds();
    try {
      const { value, shown } = await messagesDuring(() => runTicket('.tickets/BLOG-1.ticket.json'));
      assert.equal(value, undefined, 'no run');
      assert.deepEqual(shown, [{ level: 'error', text: new WorkspaceLockedError(lock).message }]);
      assert.match(
        shown[0]!.text,
        new RegExp(
          `^another run holds the lock of this workspace: pid ${holder.pid} on .*running "ticket-runner run \\.tickets/BLOG-3\\.ticket\\.json"\\. Wait for it to end, or stop it \\(kill ${holder.pid}\\)\\.$`,
        ),
      );
      assert.deepEqual(runIds(), before, 'no run was started');
      assert.deepEqual(JSON.parse(readFileSync(abs(LOCK_FILE), 'utf8')), lock, 'the holder keeps its lock');
    } finally {
      holder.kill('SIGKILL');
      rmSync(abs(LOCK_FILE), { force: true });
    }
  });

  it('a stale lock is taken over with a warning; uncommitted changes in scope are warned about, logged, and the run goes on', async function () {
    this.timeout(240_000);
    const root = folder().uri.fsPath;
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd: root, stdio: 'pipe' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'the fixture');
    const file = abs('src/handlers/posts.ts');
    const pristine = readFileSync(file, 'utf8');
    writeFileSync(file, pristine + "\n// the user's work in progress\n");
    // A holder that is gone: a process that has exited.
    const dead = spawn('true');
    await new Promise((r) => dead.on('exit', r));
    const stale = holderLock(dead.pid!);
    writeLock(stale);
    try {
      const { value: result, shown } = await messagesDuring(() => runTicket('.tickets/BLOG-1.ticket.json'));
      assert.ok(result, 'the run went on');
      assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
      const warnings = shown.filter((m) => m.level === 'warning').map((m) => m.text);
      assert.ok(
        warnings.includes(
          `Ticket Runner took over a stale lock: pid ${stale.pid} on ${stale.host}, started ${stale.startedAt}, running "${stale.command}", and that process is gone.`,
        ),
        warnings.join('\n'),
      );
      assert.ok(
        warnings.includes(
          'Ticket Runner: uncommitted changes in scope: src/handlers/posts.ts (the run goes on; rollback puts them back as they are now).',
        ),
        warnings.join('\n'),
      );
      const log = readFileSync(abs(`.ticket-runner/runs/${result.runId}/events.jsonl`), 'utf8');
      assert.match(log, /"type":"uncommitted\.detected","files":\["src\/handlers\/posts\.ts"\]/);
      assert.equal(existsSync(abs(LOCK_FILE)), false, 'the run released the lock it took over');
      await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
      assert.equal(readFileSync(file, 'utf8'), pristine + "\n// the user's work in progress\n", "the rollback put the user's work back");
    } finally {
      writeFileSync(file, pristine);
      rmSync(path.join(root, '.git'), { recursive: true, force: true });
    }
  });
});
