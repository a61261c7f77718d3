import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { packageRoot } from '../../../src/node/packageRoot';
import { OsSandbox } from '../../../src/node/sandbox/osSandbox';
import { WorkerManager } from '../../../src/node/sandbox/sandboxThread';

/**
 * The sandbox runtime scans the process's working folder for dangerous names on every wrap.
 * Neither the CLI nor the editor's extension host runs in the workspace; from `/` that scan runs
 * into the runtime's ten-second limit on every command. It runs only where it protects
 * something: when the process's folder is one the command may write. The real runtime in its
 * worker thread (dist/sandboxWorker.js), with bubblewrap; ripgrep is seen through a shim on PATH
 * that notes the folder each scan walks.
 */
describe('the sandbox scans the folder the process was started in only when a command may write there', function () {
  this.timeout(60_000);
  const was = process.cwd();
  const pathWas = process.env.PATH;
  let base: string;
  let scans: string;
  let sandbox: OsSandbox;

  before(async function () {
    base = mkdtempSync(path.join(tmpdir(), 'tr-quiet-cwd-'));
    scans = path.join(base, 'scans.log');
    const rg = spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim();
    assert.ok(rg, 'ripgrep is installed (npm test sets the machine up)');
    const bin = path.join(base, 'bin');
    mkdirSync(bin);
    // The folder a scan walks is its last argument.
    writeFileSync(path.join(bin, 'rg'), `#!/bin/sh\nfor last; do :; done\nprintf '%s\\n' "$last" >> '${scans}'\nexec '${rg}' "$@"\n`);
    chmodSync(path.join(bin, 'rg'), 0o755);
    // The worker takes the environment it is started with: a worker of this file's own, since
    // OsSandbox.start() keeps the process's first, which another file may have started before.
    process.env.PATH = `${bin}${path.delimiter}${pathWas ?? ''}`;
    const started = await WorkerManager.start(path.join(packageRoot(), 'dist', 'sandboxWorker.js'));
    assert.ok(!('off' in started), `the sandbox started: ${JSON.stringify(started)}`);
    sandbox = new OsSandbox(started);
  });
  after(() => {
    process.chdir(was);
    process.env.PATH = pathWas;
    rmSync(base, { recursive: true, force: true });
  });

  /** A folder with a dangerous name in it and a nested repository, as a user's folder has. */
  function folder(name: string): string {
    const dir = path.join(base, name);
    mkdirSync(path.join(dir, '.vscode'), { recursive: true });
    writeFileSync(path.join(dir, '.vscode', 'settings.json'), '{}');
    mkdirSync(path.join(dir, 'lib', '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(dir, 'lib', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    return dir;
  }

  async function wrapFrom(cwd: string, allowWrite: string[]): Promise<{ argv: string[]; scannedFrom: string[] }> {
    writeFileSync(scans, '');
    process.chdir(cwd);
    try {
      const ws = allowWrite[0]!;
      const argv = await sandbox.wrap('true', [], ws, { allowWrite, denyWrite: [], workspace: ws }, new AbortController().signal);
      const ran = spawnSync(argv[0]!, argv.slice(1), { cwd: ws, encoding: 'utf8' });
      assert.equal(ran.status, 0, ran.stderr);
      return { argv, scannedFrom: readFileSync(scans, 'utf8').split('\n').filter(Boolean) };
    } finally {
      await sandbox.afterCommand();
      process.chdir(was);
    }
  }

  it('started outside every writable folder: the folder is not walked, and nothing of it is in the command', async () => {
    const ws = folder('ws-outside');
    const elsewhere = folder('started-here');
    const { argv, scannedFrom } = await wrapFrom(elsewhere, [ws]);
    assert.ok(!scannedFrom.includes(elsewhere), `ripgrep ran from ${JSON.stringify(scannedFrom)}`);
    assert.ok(scannedFrom.includes(ws), 'the workspace is scanned (its own denies)');
    assert.ok(!argv.join(' ').includes(elsewhere), 'no deny of the folder the process started in');
    // The workspace's own denies are there as ever.
    assert.ok(argv.join(' ').includes(path.join(ws, '.vscode')));
    assert.ok(argv.join(' ').includes(path.join(ws, 'lib', '.git', 'hooks')));
  });

  it('started inside a folder the command may write: the runtime scans it as ever, and denies its dangerous names', async () => {
    const ws = folder('ws-inside');
    const writable = folder('writable');
    const { argv, scannedFrom } = await wrapFrom(writable, [ws, writable]);
    assert.ok(scannedFrom.includes(writable), `ripgrep ran from ${JSON.stringify(scannedFrom)}`);
    assert.ok(argv.join(' ').includes(path.join(writable, '.vscode')));
    assert.ok(argv.join(' ').includes(path.join(writable, 'lib', '.git', 'hooks')));
  });

  it('started in the workspace itself, as a user at a terminal does: its denies are there', async () => {
    const ws = folder('ws-cwd');
    const { argv } = await wrapFrom(ws, [ws]);
    assert.ok(argv.join(' ').includes(path.join(ws, '.vscode')));
    assert.ok(argv.join(' ').includes(path.join(ws, 'lib', '.git', 'hooks')));
  });
});
