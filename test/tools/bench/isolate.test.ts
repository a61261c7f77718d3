import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runIsolated } from '../../../bench/isolate';

/**
 * The bench's section runner: a section that hangs, or leaves a server behind in its own
 * process group (as code-server does), is stopped at its limit with everything it started.
 */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('bench: each section in its own process under a time limit', function () {
  this.timeout(30_000);
  let dir = '';
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'tr-isolate-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A section entry of the same shape as bench/section.ts: `<name> <args> <out>`. */
  function entry(body: string): string {
    const file = path.join(dir, `entry-${Math.random().toString(36).slice(2)}.js`);
    writeFileSync(
      file,
      `const { spawn } = require('node:child_process');\nconst { writeFileSync } = require('node:fs');\nconst [name, args, out] = process.argv.slice(2);\n${body}\n`,
    );
    return file;
  }

  it('stops a hanging section at its limit, with a detached server it started, and says why on one line', async () => {
    const pidFile = path.join(dir, 'server.pid');
    // The "server" starts its own process group (detached), like code-server and Chromium.
    const hang = entry(
      `const s = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });\nwriteFileSync(${JSON.stringify(pidFile)}, String(s.pid));\nsetInterval(() => {}, 1000);`,
    );
    const t = Date.now();
    const r = await runIsolated('hang', {}, 2, path.join(dir, 'hang.json'), hang);
    assert.ok(Date.now() - t < 8_000, `returned after ${Date.now() - t} ms`);
    assert.equal(r.value, undefined);
    assert.equal(r.why, 'stopped at its time limit of 2 s');
    const server = Number(readFileSync(pidFile, 'utf8'));
    for (const until = Date.now() + 3000; alive(server) && Date.now() < until;) await new Promise((res) => setTimeout(res, 50));
    assert.equal(alive(server), false, 'the detached server was killed with the section');
  });

  it("gives the first line of a section's error, and says so when a section dies with no result", async () => {
    const fails = entry(`writeFileSync(out, JSON.stringify({ ok: false, error: 'Chromium is not at /usr/bin/chromium\\nstack…' }));`);
    const r = await runIsolated('fails', {}, 10, path.join(dir, 'fails.json'), fails);
    assert.deepEqual([r.value, r.why], [undefined, 'Chromium is not at /usr/bin/chromium']);
    const dies = entry('process.exit(3);');
    assert.equal((await runIsolated('dies', {}, 10, path.join(dir, 'dies.json'), dies)).why, 'its process exited with 3 and no result');
    const works = entry(`writeFileSync(out, JSON.stringify({ ok: true, value: { name, args: JSON.parse(args) } }));`);
    assert.deepEqual((await runIsolated('works', { n: 1 }, 10, path.join(dir, 'works.json'), works)).value, {
      name: 'works',
      args: { n: 1 },
    });
  });
});
