import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core';
import { abs, api, folder, messagesDuring, pageShown, runIds, withSettings } from './host';

const runBlog1 = () =>
  vscode.commands.executeCommand<RunResult | undefined>('ticketRunner.runTicket', vscode.Uri.file(abs('.tickets/BLOG-1.ticket.json')));

/**
 * In an extension host whose PATH has no bwrap, as on a machine without bubblewrap: the
 * ticketRunner.requireSandbox setting, the editor's twin of --require-sandbox, refuses to
 * start; without it the run goes on and every view says "sandbox: off (reason)". The PATH is
 * set here, in the host, before the first run: the server resolves the login shell's
 * environment for its extension hosts, which would put a PATH given to code-server back. The
 * sandbox is probed once per process, so these run in a host of their own (noSandboxIndex.ts).
 */
describe('where the OS sandbox cannot start', () => {
  const saved = process.env.PATH;
  before(() => {
    process.env.PATH = path.join(path.dirname(folder().uri.fsPath), 'no-such-bin');
  });
  after(() => {
    process.env.PATH = saved;
  });

  it('with ticketRunner.requireSandbox, Run Ticket shows why and starts nothing', async () => {
    const before = runIds();
    const { value, shown } = await messagesDuring(() => withSettings({ requireSandbox: true }, runBlog1));
    assert.equal(value, undefined);
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.equal(shown[0]!.level, 'error');
    assert.match(
      shown[0]!.text,
      /^the sandbox is required but cannot start: .*bubblewrap \(bwrap\) not installed.*\. On Debian or Ubuntu: apt-get install bubblewrap socat ripgrep$/,
    );
    assert.deepEqual(runIds(), before, 'no run was started');
  });

  it('without it, the run goes on, and the log, the inspector and the webview say "sandbox: off (reason)"', async function () {
    this.timeout(240_000);
    const result = await withSettings({ requireSandbox: false }, runBlog1);
    assert.ok(result);
    assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
    const started = JSON.parse(readFileSync(abs(`.ticket-runner/runs/${result.runId}/events.jsonl`), 'utf8').split('\n')[0]!) as {
      type: string;
      sandbox?: { on: boolean; detail: string };
    };
    assert.equal(started.type, 'run.started');
    assert.equal(started.sandbox?.on, false);
    assert.match(started.sandbox.detail, /bubblewrap \(bwrap\) not installed/);
    const a = await api();
    const run = a.tree.getChildren().find((r) => r.runId === result.runId)!;
    const first = a.tree.getChildren(run)[0]!;
    assert.deepEqual([first.contextValue, first.label], ['sandbox', `sandbox: off (${started.sandbox.detail})`]);
    assert.equal(a.tree.getTreeItem(first).iconPath && (a.tree.getTreeItem(first).iconPath as vscode.ThemeIcon).id, 'warning');
    assert.ok(a.panels.panelOf(result.runId), 'the run opened in its webview (the driver reads its sandbox line)');
    assert.ok(await pageShown(result.runId), "the run's page was sent its state within a minute");
  });
});
