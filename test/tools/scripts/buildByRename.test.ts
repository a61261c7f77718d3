import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { copyByRename } from '../../../scripts/distFiles.cjs';
import { REPO_ROOT } from '../../support/tempWorkspace';

/** The sandbox runtime's helper as the build ships it: it stays the parent of what it runs, so its file is busy while a run goes on. */
const APPLY_SECCOMP = path.join(REPO_ROOT, 'dist', 'vendor', 'seccomp', process.arch, 'apply-seccomp');

/** Starts `file sleep 60` and waits until it runs. */
async function running(file: string): Promise<ChildProcess> {
  const child = spawn(file, ['sleep', '60'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(child.exitCode, null, `${file} runs`);
  return child;
}

describe('the build writes dist/ by rename, so it can run beside a running product', function () {
  this.timeout(180_000);
  before(function () {
    // ETXTBSY is Linux's: elsewhere there is nothing to prove. On Linux the binary must be there, or the test fails.
    if (process.platform !== 'linux') this.skip();
    assert.ok(existsSync(APPLY_SECCOMP), `${APPLY_SECCOMP} is missing: run npm run build first`);
  });

  it('copyByRename replaces a binary that is running, where a plain copy fails with ETXTBSY', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tr-busy-'));
    const busy = path.join(dir, 'apply-seccomp');
    copyFileSync(APPLY_SECCOMP, busy);
    spawnSync('chmod', ['755', busy]);
    const child = await running(busy);
    try {
      assert.throws(() => copyFileSync(APPLY_SECCOMP, busy), /ETXTBSY/, 'a plain copy over a running binary fails');
      const next = path.join(dir, 'next');
      writeFileSync(next, 'the next build');
      copyByRename(next, busy, 0o755);
      assert.equal(readFileSync(busy, 'utf8'), 'the next build');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("npm run build succeeds while dist's apply-seccomp runs, and leaves no file of its own beside what it wrote", async () => {
    const child = await running(APPLY_SECCOMP);
    try {
      const build = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT, encoding: 'utf8' });
      assert.equal(build.status, 0, build.stderr);
      assert.deepEqual(
        readFileSync(APPLY_SECCOMP),
        readFileSync(
          path.join(REPO_ROOT, 'node_modules', '@anthropic-ai', 'sandbox-runtime', 'vendor', 'seccomp', process.arch, 'apply-seccomp'),
        ),
      );
      const leftovers = spawnSync('find', [path.join(REPO_ROOT, 'dist'), '-name', '*.tmp'], { encoding: 'utf8' }).stdout.trim();
      assert.equal(leftovers, '');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
