import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core';
import type { RunState } from '../../../src/core/run/runState';
import { abs, api, folder } from './host';

/**
 * How long another extension's command waits while a run checks. The bound is the bench's 250 ms
 * target with room for this shared machine and for the window's built-in extensions, which share
 * the host: a run with the language service or the sandbox runtime back on the host's thread held
 * it for 300 ms to seconds at once (under a CPU profile and at a load of 10, the fork of one child
 * process was seen to take 600 ms, so a tighter bound would measure the machine).
 */
export const PING_BOUND_MS = 1_000;
/** Between one answer and the next ask. */
const PAUSE_MS = 20;

/** Where a run was when a ping was asked: the last attempt's checks so far, or the gates. */
function stepOf(state: RunState | undefined): string {
  if (!state) return 'no run yet';
  const last = state.attempts.at(-1) as Record<string, unknown> | undefined;
  return `attempt ${state.attempts.length} (${
    last
      ? Object.keys(last)
          .filter((k) => last[k] !== undefined)
          .join(' ')
      : 'none'
  }), ${state.gates.length} gates`;
}

describe("another extension's command while a run checks", function () {
  this.timeout(360_000);
  it(`answers within ${PING_BOUND_MS} ms all through a run of BLOG-1`, async () => {
    const a = await api();
    // The window as a user's would be when they run a ticket: a TypeScript file and a ticket open.
    // Opening them activates VS Code's own TypeScript and JSON extensions in this host, which
    // start tsserver and load their code at once (a CPU profile of the host showed 1.7 s and 2 s
    // of that, in their code, when the run was what first opened such files); that is the
    // window's start, whoever opens the first file, not work of the run.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(abs('src/handlers/posts.ts')), { preview: false });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(abs('.tickets/BLOG-1.ticket.json')), { preview: false });
    const warm = Date.now() + 60_000;
    while (Date.now() < warm) {
      const symbols = await vscode.commands.executeCommand<unknown[] | undefined>(
        'vscode.executeDocumentSymbolProvider',
        vscode.Uri.file(abs('src/handlers/posts.ts')),
      );
      if (symbols?.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    await vscode.commands.executeCommand('ticketRunnerTests.ping');
    let done = false;
    const t0 = Date.now();
    const run = Promise.resolve(
      vscode.commands.executeCommand<RunResult | undefined>('ticketRunner.runTicket', vscode.Uri.file(abs('.tickets/BLOG-1.ticket.json'))),
    ).finally(() => (done = true));
    // Each ping's wait, and what the run was doing then: checked once its first attempt's checks began.
    const waits: { ms: number; at: number; checking: boolean; step: string }[] = [];
    let checking = false;
    const sub = a.runs.onDidChangeRun(() => {
      checking ||= a.runs.list().some((r) => r.state.attempts.length > 0);
    });
    try {
      // Each wait counts the pause's lateness too: a host held during the pause answers late as surely.
      while (!done) {
        const t = Date.now();
        const step = stepOf(a.runs.list().find((r) => r.state.status === 'running')?.state);
        await new Promise((r) => setTimeout(r, PAUSE_MS));
        await vscode.commands.executeCommand('ticketRunnerTests.ping');
        waits.push({ ms: Math.max(0, Date.now() - t - PAUSE_MS), at: t - t0, checking, step });
      }
    } finally {
      sub.dispose();
    }
    const result = await run;
    assert.equal(result?.state.status, 'passed', JSON.stringify(result?.state.finished));
    const during = waits.filter((w) => w.checking);
    const longest = [...waits].sort((x, y) => y.ms - x.ms).slice(0, 3);
    const figure = `${waits.length} pings in ${Date.now() - t0} ms (${during.length} from the first attempt on); longest waits ${longest.map((w) => `${w.ms} ms at ${w.at} ms (after ${w.step})`).join(', ')}`;
    // Beside the results, for the driver to print (the host's console is not its).
    writeFileSync(path.join(path.dirname(folder().uri.fsPath), 'vscode-ping.txt'), figure);
    assert.ok(during.length >= 20, `the ping was asked while the run checked (${during.length} times)`);
    assert.ok(longest[0]!.ms <= PING_BOUND_MS, `a ping waited ${longest[0]!.ms} ms`);
  });
});
