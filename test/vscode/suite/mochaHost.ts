import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';

/**
 * What an `extensionTestsPath` entry does: runs the suites `load` defines with mocha and
 * writes the results next to the workspace folder, where the driver reads them (a file works
 * on any VS Code version; the automation exit hook is a bonus).
 */
export function runMocha(load: () => void): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false, reporter: 'spec' });
  mocha.suite.emit('pre-require', globalThis, 'extension.test', mocha);
  load();
  const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const out = path.join(path.dirname(folder), 'vscode-suite-results.json');
  const results: { title: string; state: string; durationMs?: number; error?: string }[] = [];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      writeFileSync(out, JSON.stringify({ failures, durationMs: Date.now() - started, results }, null, 2));
      if (failures) reject(new Error(`${failures} test(s) failed`));
      else resolve();
    });
    runner.on('pass', (t) => results.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration }));
    runner.on('fail', (t, err: Error) =>
      results.push({ title: t.fullTitle(), state: 'failed', error: `${err.message}\n${err.stack ?? ''}` }),
    );
  });
}
