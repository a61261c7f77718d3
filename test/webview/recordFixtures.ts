/**
 * Records the run logs the webview tests replay: runs the core with the scripted model on
 * a temp copy of the blog-api fixture and copies each run's events.jsonl and blobs into
 * test/webview/fixtures/<recording>/. The workspace, the repository and temp folders in the
 * log are rewritten, so the fixtures hold no path of the machine that recorded them.
 *
 *   npx tsx test/webview/recordFixtures.ts [recording...]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { resolveCorrection, startRun } from '../../src/core';
import { DEFAULT_GATES, type GateSettings } from '../../src/core/stages/common/gateConfig';
import { tmpdir } from 'node:os';
import { withScriptedDeps } from '../support/scenario';
import { copyFixture, REPO_ROOT } from '../support/tempWorkspace';

const OUT = path.join(__dirname, 'fixtures');

/** A recording: the fixture ticket it runs, the gates it has, and whether its correction is accepted. */
interface Recording {
  ticket: string;
  gates?: GateSettings;
  accept?: boolean;
}

const RECORDINGS: Record<string, Recording> = {
  'BLOG-1': { ticket: 'BLOG-1' },
  'BLOG-3': { ticket: 'BLOG-3' },
  'BLOG-14': { ticket: 'BLOG-14' },
  // The run page after a correction: the scope addition accepted in the run view, attempt 2 and the gates judge it.
  'BLOG-4-accepted': { ticket: 'BLOG-4', gates: { enabled: DEFAULT_GATES }, accept: true },
};
const NAMES = process.argv.slice(2).length ? process.argv.slice(2) : ['BLOG-1', 'BLOG-3', 'BLOG-14'];

async function record(name: string): Promise<void> {
  const r = RECORDINGS[name];
  if (!r) throw new Error(`no recording named ${name}; there are ${Object.keys(RECORDINGS).join(', ')}`);
  const ws = copyFixture();
  try {
    const ticketPath = `.tickets/${r.ticket}.ticket.json`;
    const signal = new AbortController().signal;
    let result = await withScriptedDeps(ws.root, ticketPath, (deps) => startRun(deps, { ticketPath, signal }), { gates: r.gates });
    if (r.accept) {
      const runId = result.runId;
      result = await withScriptedDeps(
        ws.root,
        ticketPath,
        (deps) => resolveCorrection(deps, runId, { decision: 'accept', by: 'webview', signal }),
        {
          gates: r.gates,
          wire: { continuesRun: runId },
        },
      );
    }
    const runDir = path.dirname(result.logPath);
    const dest = path.join(OUT, name);
    rmSync(dest, { recursive: true, force: true });
    mkdirSync(dest, { recursive: true });
    // A linked node_modules (a second checkout sharing its packages) is named as the repository's own.
    const modules = realpathSync(path.join(REPO_ROOT, 'node_modules'));
    const tmp = tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const scrub = (text: string) =>
      text
        .split(modules)
        .join('/ticket-runner/node_modules')
        .split(ws.root)
        .join('/workspace')
        .split(REPO_ROOT)
        .join('/ticket-runner')
        .replace(new RegExp(`${tmp}/[A-Za-z0-9._-]+`, 'g'), '/tmp/run');
    // A blob is named by its hash: one the scrub changes is stored under its new hash, and the log names that.
    let log = scrub(readFileSync(result.logPath, 'utf8'));
    mkdirSync(path.join(dest, 'blobs'));
    for (const hash of readdirSync(path.join(runDir, 'blobs'))) {
      const text = scrub(readFileSync(path.join(runDir, 'blobs', hash), 'utf8'));
      const named = createHash('sha256').update(text).digest('hex');
      if (named !== hash) log = log.split(hash).join(named);
      writeFileSync(path.join(dest, 'blobs', named), text);
    }
    writeFileSync(path.join(dest, 'events.jsonl'), log);
    console.log(
      `${name}: ${result.state.status}, ${result.state.attempts.length} attempt(s), ${readdirSync(path.join(dest, 'blobs')).length} blob(s)`,
    );
  } finally {
    ws.dispose();
  }
}

void (async () => {
  for (const n of NAMES) await record(n);
})();
