import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunState } from '../../../src/core/run/reducer';
import { UNATTRIBUTED_DIR } from '../../../src/node/testRunners/treeTestRunner';
import { makeAnswerHostile, runBuiltCli } from '../../support/hostileCode';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * The user keeps working while a ticket runs: a writer process beside the run saves a numbered
 * line every 150 ms to a source file of the read scope (never written by the run), the README
 * and a new file, from before the run starts to after it ends. The CLI runs BLOG-1 from outside
 * the workspace (`--workspace`), as the editor does. Before the test commands ran in a copy of
 * the workspace, the side-effect guard put back a third of those saves with the tests' writes.
 */
const SAVED = ['src/utils/pagination.ts', 'README.md', 'NOTES.md'];
const EVERY_MS = 150;

/** The writer: appends `// save N` to each file, N from 1, and prints the last N when told to stop. */
const WRITER = `
const fs = require('node:fs'), path = require('node:path');
const [root, every, ...files] = process.argv.slice(1);
let n = 0;
const tick = () => { n++; for (const f of files) fs.appendFileSync(path.join(root, f), '// save ' + n + '\\n'); };
tick();
const timer = setInterval(tick, Number(every));
process.on('SIGTERM', () => { clearInterval(timer); process.stdout.write(String(n)); process.exit(0); });
`;

function startWriter(root: string): { stop: () => Promise<number> } {
  const child = spawn(process.execPath, ['-e', WRITER, root, String(EVERY_MS), ...SAVED], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await ended;
      return Number(out);
    },
  };
}

/** Each file holds every save, 1 to n, in order (the file's own lines before them kept too). */
function assertEverySaveKept(root: string, n: number, original: Record<string, string>): void {
  assert.ok(n > 20, `the writer made only ${n} saves: the run was too short to race with`);
  const want = Array.from({ length: n }, (_, i) => `// save ${i + 1}`);
  for (const f of SAVED) {
    const text = readFileSync(path.join(root, f), 'utf8');
    const saves = text.split('\n').filter((l) => l.startsWith('// save '));
    assert.deepEqual(saves, want, `${f}: ${want.length - saves.length} of ${n} saves lost, or out of order`);
    assert.ok(text.startsWith(original[f] ?? ''), `${f}: its text from before the run was changed`);
  }
}

async function runBlog1(root: string, env: NodeJS.ProcessEnv, ticket = 'BLOG-1'): Promise<{ state: RunState; out: string; err: string }> {
  const r = await runBuiltCli(['run', `.tickets/${ticket}.ticket.json`, '--workspace', root, '--model', 'scripted', '--json'], env);
  const json = r.out.slice(r.out.indexOf('{'));
  assert.ok(json.startsWith('{'), `no JSON from the CLI (exit ${r.code}): ${r.err}`);
  return { state: (JSON.parse(json) as { state: RunState }).state, out: r.out, err: r.err };
}

function originals(root: string): Record<string, string> {
  return Object.fromEntries(SAVED.map((f) => [f, existsSync(path.join(root, f)) ? readFileSync(path.join(root, f), 'utf8') : '']));
}

/**
 * A prelude for the handler the Coder writes: when the tests load it, it finds the workspace
 * through the copy's link to its packages and appends a line to a file of the read scope there.
 * Without the sandbox that write lands; with it, it is refused (and swallowed, so the tests pass).
 */
const REACH_WORKSPACE = `
import * as hostileFs from 'node:fs';
import * as hostilePath from 'node:path';
try {
  const linked = hostileFs.readlinkSync(hostilePath.join(process.cwd(), 'node_modules', 'tsx'));
  const workspace = hostilePath.dirname(hostilePath.dirname(linked));
  hostileFs.appendFileSync(hostilePath.join(workspace, 'src/utils/pagination.ts'), '// hostile\\n');
} catch {}
`;

describe('scenarios: the user saves beside a run (BLOG-1 through the CLI, started outside the workspace)', function () {
  this.timeout(600_000);
  const withSandbox = { ...process.env };
  const withoutSandbox = { ...process.env, TICKET_RUNNER_SANDBOX: 'off' };

  it('sandbox on: every save is kept, in order, and the run ends as it does without the writer', async () => {
    const alone = copyFixture();
    const beside = copyFixture();
    try {
      const controlStarted = Date.now();
      const control = await runBlog1(alone.root, withSandbox);
      const controlMs = Date.now() - controlStarted;
      const before = originals(beside.root);
      const writer = startWriter(beside.root);
      const started = Date.now();
      const run = await runBlog1(beside.root, withSandbox);
      const ms = Date.now() - started;
      const n = await writer.stop();
      assertEverySaveKept(beside.root, n, before);
      assert.equal(run.state.sandbox?.on, true, JSON.stringify(run.state.sandbox));
      assert.deepEqual(
        [run.state.status, run.state.finished?.reason.kind, run.state.attempts.length],
        [control.state.status, control.state.finished?.reason.kind, control.state.attempts.length],
      );
      assert.equal(run.state.status, 'passed', JSON.stringify(run.state.finished));
      // The saves the commands saw are named as the user's, kept as they are.
      const seen = run.state.attempts.flatMap((a) => a.tests?.workspaceEdits ?? []);
      assert.ok(seen.length > 0 && seen.every((e) => e.by === 'user' && SAVED.includes(e.path)), JSON.stringify(seen));
      // And said, in the log and in what `show` prints: each file once.
      assert.deepEqual([...run.state.userSaves].sort(), [...SAVED].sort(), JSON.stringify(run.state.userSaves));
      const shown = await runBuiltCli(['show', run.state.runId, '--workspace', beside.root], withSandbox);
      assert.match(shown.out, /Saved by you while the tests ran, kept as saved: .*README\.md/, shown.out);
      console.log(
        `      (${n} saves to each of ${SAVED.length} files in ${ms} ms, every one kept; the same run without the writer: ${controlMs} ms)`,
      );
    } finally {
      alone.dispose();
      beside.dispose();
    }
  });

  it("sandbox off: every save is kept, and the run, which cannot tell them from a test's writes, stops naming them, each with a copy under the run store: never a pass, never put back", async () => {
    const ws = copyFixture();
    try {
      const before = originals(ws.root);
      const writer = startWriter(ws.root);
      const run = await runBlog1(ws.root, withoutSandbox);
      const n = await writer.stop();
      assertEverySaveKept(ws.root, n, before);
      assert.equal(run.state.sandbox?.on, false);
      assert.notEqual(run.state.status, 'passed');
      const reason = run.state.finished?.reason;
      assert.equal(reason?.kind, 'unattributedWrites', JSON.stringify(reason));
      assert.ok(reason.kind === 'unattributedWrites' && reason.files.every((f) => SAVED.includes(f)), JSON.stringify(reason));
      // Each named file as the run found it, for a look: under the run store, by command.
      const store = path.join(ws.root, UNATTRIBUTED_DIR);
      for (const f of reason.files)
        assert.ok(
          readdirSync(store).some((n) => existsSync(path.join(store, n, f))),
          `${f} has no copy under ${UNATTRIBUTED_DIR}`,
        );
      assert.equal(run.state.modelCalls.length, 0, 'the run went on past the command that found them');
    } finally {
      ws.dispose();
    }
  });

  it('a hostile test that appends to a read-scope file of the workspace while the user saves it: refused with the sandbox, the run never passes without it, and every save is kept either way', async () => {
    for (const [env, sandboxed] of [
      [withSandbox, true],
      [withoutSandbox, false],
    ] as const) {
      const ws = copyFixture();
      try {
        makeAnswerHostile(ws.root, 'BLOG-1/attempt1.ts', REACH_WORKSPACE);
        makeAnswerHostile(ws.root, 'BLOG-1/attempt2.ts', REACH_WORKSPACE);
        const before = originals(ws.root);
        const writer = startWriter(ws.root);
        const run = await runBlog1(ws.root, env);
        const n = await writer.stop();
        const pagination = readFileSync(path.join(ws.root, 'src/utils/pagination.ts'), 'utf8');
        if (sandboxed) {
          assert.doesNotMatch(pagination, /\/\/ hostile/, 'the sandbox let a test write the workspace');
          assertEverySaveKept(ws.root, n, before);
        } else {
          assert.notEqual(run.state.status, 'passed', 'a run passed on a file a test wrote in the workspace');
          assert.equal(run.state.finished?.reason.kind, 'unattributedWrites');
          // The attacker's line is kept as found (it cannot be told from a save), and so is every save.
          const userLines = (f: string) =>
            readFileSync(path.join(ws.root, f), 'utf8')
              .split('\n')
              .filter((l) => l !== '// hostile')
              .join('\n');
          for (const f of SAVED) assert.ok(userLines(f).includes(`// save ${n}`), f);
          assert.deepEqual(
            pagination.split('\n').filter((l) => l.startsWith('// save ')),
            Array.from({ length: n }, (_, i) => `// save ${i + 1}`),
          );
        }
      } finally {
        ws.dispose();
      }
    }
  });
});
