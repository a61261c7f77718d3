import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { workspaceDenies } from '../../../src/node/sandbox/workspaceDenies';

describe('workspaceDenies: the runtime mandatory denies of the workspace, wherever the process runs', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'tr-denies-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("denies the workspace's git hooks and config, its dangerous files and folders that are there, and those of a nested repository and a package's .vscode, not the process's cwd", async () => {
    const root = path.join(base, 'ws');
    mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(path.join(root, 'vendor', 'lib', '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(root, 'vendor', 'lib', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(path.join(root, 'packages', 'app', '.vscode'), { recursive: true });
    writeFileSync(path.join(root, 'packages', 'app', '.vscode', 'settings.json'), '{}');
    mkdirSync(path.join(root, 'node_modules', 'x', '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(root, 'node_modules', 'x', '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
    writeFileSync(path.join(root, '.gitmodules'), '');
    mkdirSync(path.join(root, '.vscode'));
    writeFileSync(path.join(root, 'vendor', 'lib', '.git', 'config'), '[core]\n');
    const denies = await workspaceDenies(root, new AbortController().signal);
    assert.notEqual(process.cwd(), root);
    for (const p of [
      '.git/hooks',
      '.git/config',
      '.gitmodules',
      '.vscode',
      'vendor/lib/.git/hooks',
      'vendor/lib/.git/config',
      'packages/app/.vscode',
    ]) {
      assert.ok(denies.includes(path.join(root, p)), `${p} in ${JSON.stringify(denies)}`);
    }
    // What is not there gets no placeholder in the workspace: the side-effect guard finds it if a test run makes it.
    for (const p of ['.bashrc', '.idea', '.claude/commands']) assert.ok(!denies.includes(path.join(root, p)), p);
    assert.ok(!denies.some((d) => d.startsWith(path.join(root, 'node_modules'))), 'node_modules is not scanned');
    assert.ok(
      denies.every((d) => d.startsWith(root + path.sep)),
      'nothing of the process cwd',
    );
  });

  it('denies a .git that is a file (a worktree, a submodule), so it cannot be pointed at another git folder', async () => {
    const root = path.join(base, 'wt');
    mkdirSync(root);
    writeFileSync(path.join(root, '.git'), 'gitdir: ../main/.git/worktrees/wt\n');
    const denies = await workspaceDenies(root, new AbortController().signal);
    assert.ok(denies.includes(path.join(root, '.git')));
  });
});
