import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { startCodeServer, workbenchUrl } from './codeServer';
import { buildSuite, buildTestExtension, launchChromium, openWorkbench, ROOT, tempWorkspace } from './workbench';

/**
 * The extension host keeps answering while a run checks: a test extension (test/vscode/pingExt)
 * installed beside Ticket Runner has one command, and the in-host suite (suite/responsive.test.ts)
 * asks it again and again through a scripted run of BLOG-1, timing each answer.
 */
describe('the extension host while a run checks, in code-server', function () {
  this.timeout(420_000);
  const ws = tempWorkspace();
  /** What the test started, ended last first. */
  const ends: (() => Promise<void> | void)[] = [() => ws.dispose()];
  after(async () => {
    for (const end of ends.reverse()) await end();
  });

  it("passes the suite: another extension's command answers all through the run", async () => {
    const ping = await buildTestExtension('pingExt', path.join(ws.base, 'ticket-runner-tests.ping-0.0.1'));
    const suite = await buildSuite(
      path.join(ROOT, 'test', 'vscode', 'suite', 'responsiveIndex.ts'),
      path.join(ROOT, 'out', 'vscode-suite', 'responsive.js'),
    );
    const server = await startCodeServer({ folder: ws.folder, extensions: [ping] });
    ends.push(() => server.stop());
    const browser = await launchChromium();
    ends.push(() => browser.close());
    const results = path.join(ws.base, 'vscode-suite-results.json');
    const logs: string[] = [];
    await openWorkbench(
      browser,
      workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: ROOT, testsPath: suite }),
      { log: (s) => logs.push(s) },
    );
    const until = Date.now() + 400_000;
    while (!existsSync(results) && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    assert.ok(existsSync(results), `the suite wrote no results.\n${logs.join('\n')}\n${server.log().slice(-4000)}`);
    const { failures, results: tests } = JSON.parse(readFileSync(results, 'utf8')) as {
      failures: number;
      results: { title: string; state: string; durationMs?: number; error?: string }[];
    };
    const figure = path.join(ws.base, 'vscode-ping.txt');
    if (existsSync(figure)) console.log(`      ${readFileSync(figure, 'utf8')}`);
    for (const t of tests)
      console.log(
        `      ${t.state === 'passed' ? '✔' : '✘'} ${t.title}${t.durationMs !== undefined ? ` (${t.durationMs} ms)` : ''}${t.error ? `\n${t.error}` : ''}`,
      );
    assert.equal(
      failures,
      0,
      tests
        .filter((t) => t.state === 'failed')
        .map((t) => `${t.title}: ${t.error}`)
        .join('\n'),
    );
    assert.equal(tests.length, 1);
  });
});
