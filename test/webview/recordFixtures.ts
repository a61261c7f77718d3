/**
 * Records the run logs the webview tests replay: runs the core with the scripted model on
 * a temp copy of the blog-api fixture and copies each run's events.jsonl and blobs into
 * test/webview/fixtures/<ticket>/. The workspace, the repository and temp folders in the
 * log are rewritten, so the fixtures hold no path of the machine that recorded them.
 *
 *   npx tsx test/webview/recordFixtures.ts
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { startRun } from '../../src/core';
import { wireNodeDeps } from '../../src/node/wire';
import { tmpdir } from 'node:os';
import { copyFixture, REPO_ROOT } from '../support/tempWorkspace';

const OUT = path.join(__dirname, 'fixtures');
const TICKETS = process.argv.slice(2).length ? process.argv.slice(2) : ['BLOG-1', 'BLOG-3', 'BLOG-14'];

async function record(ticket: string): Promise<void> {
  const ws = copyFixture();
  try {
    const ticketPath = `.tickets/${ticket}.ticket.json`;
    const deps = await wireNodeDeps({ workspaceRoot: ws.root, model: 'scripted', ticketPath, env: {} });
    const result = await startRun(deps, { ticketPath, signal: new AbortController().signal });
    deps.diagnostics?.dispose?.();
    const runDir = path.dirname(result.logPath);
    const dest = path.join(OUT, ticket);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    const tmp = tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const scrub = (text: string) =>
      text
        .split(ws.root)
        .join('/workspace')
        .split(REPO_ROOT)
        .join('/ticket-runner')
        .replace(new RegExp(`${tmp}/[A-Za-z0-9._-]+`, 'g'), '/tmp/run');
    writeFileSync(path.join(dest, 'events.jsonl'), scrub(readFileSync(result.logPath, 'utf8')));
    cpSync(path.join(runDir, 'blobs'), path.join(dest, 'blobs'), { recursive: true });
    console.log(
      `${ticket}: ${result.state.status}, ${result.state.attempts.length} attempt(s), ${readdirSync(path.join(dest, 'blobs')).length} blob(s)`,
    );
  } finally {
    ws.dispose();
  }
}

void (async () => {
  for (const t of TICKETS) await record(t);
})();
