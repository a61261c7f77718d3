import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  promises as fsp,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PathError } from '../../../src/core/errors';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';

/** Writes that cannot be redirected: by a planted temp file, a symlinked file, or a symlinked folder. */
describe('FsWorkspace writes', () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'tr-fsws-'));
    root = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'target.ts'), 'untouched\n');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('never writes through a link planted where a predictable temp file would be', async () => {
    // The name the write gate used to take: the file, the process id, ".tmp".
    symlinkSync(path.join(outside, 'target.ts'), path.join(root, 'src', `a.ts.ticket-runner-${process.pid}.tmp`));
    await new FsWorkspace(root).writeFile('src/a.ts', 'export const a = 1;\n');
    assert.equal(readFileSync(path.join(outside, 'target.ts'), 'utf8'), 'untouched\n');
    assert.equal(readFileSync(path.join(root, 'src', 'a.ts'), 'utf8'), 'export const a = 1;\n');
    assert.deepEqual(
      readdirSync(path.join(root, 'src')).filter((n) => n.endsWith('.tmp') && !n.includes(String(process.pid))),
      [],
      'no temp file is left',
    );
  });

  it('refuses a file in the workspace that is a symbolic link to one outside it', async () => {
    symlinkSync(path.join(outside, 'target.ts'), path.join(root, 'src', 'linked.ts'));
    await assert.rejects(new FsWorkspace(root).writeFile('src/linked.ts', 'owned\n'), PathError);
    assert.equal(readFileSync(path.join(outside, 'target.ts'), 'utf8'), 'untouched\n');
  });

  it("refuses a link to a sibling folder whose name starts with the workspace's (ws-other beside ws)", async () => {
    const sibling = path.join(base, 'ws-other');
    mkdirSync(sibling);
    writeFileSync(path.join(sibling, 'target.ts'), 'untouched\n');
    symlinkSync(sibling, path.join(root, 'src', 'toSibling'), 'dir');
    await assert.rejects(new FsWorkspace(root).writeFile('src/toSibling/target.ts', 'owned\n'), PathError);
    assert.equal(readFileSync(path.join(sibling, 'target.ts'), 'utf8'), 'untouched\n');
  });

  it('refuses a file under a symbolically linked folder that leads outside, existing or new', async () => {
    symlinkSync(outside, path.join(root, 'src', 'linkedDir'), 'dir');
    const ws = new FsWorkspace(root);
    await assert.rejects(ws.writeFile('src/linkedDir/target.ts', 'owned\n'), PathError);
    await assert.rejects(ws.writeFile('src/linkedDir/new/deeper.ts', 'owned\n'), PathError);
    assert.equal(readFileSync(path.join(outside, 'target.ts'), 'utf8'), 'untouched\n');
    assert.deepEqual(readdirSync(outside), ['target.ts']);
  });

  it('keeps the mode of the file it replaces', async () => {
    const file = path.join(root, 'src', 'run.sh');
    writeFileSync(file, '#!/bin/sh\n');
    chmodSync(file, 0o750);
    await new FsWorkspace(root).writeFile('src/run.sh', '#!/bin/sh\necho hi\n');
    assert.equal(statSync(file).mode & 0o777, 0o750);
  });

  it('a write cut short between its temp file and the rename leaves the temp file; removeInterruptedWrite removes it and nothing else', async () => {
    const file = path.join(root, 'src', 'a.ts');
    writeFileSync(file, 'old\n');
    const ws = new FsWorkspace(root);
    // Where a kill -9 can land: the temp file written, the rename not yet made.
    const rename = fsp.rename;
    let renaming = false;
    fsp.rename = () => {
      renaming = true;
      return new Promise<void>(() => undefined);
    };
    try {
      void ws.writeFile('src/a.ts', 'new\n');
      for (let i = 0; i < 400 && !renaming; i++) await new Promise((r) => setTimeout(r, 5));
      assert.ok(renaming, 'the write reached its rename');
    } finally {
      fsp.rename = rename;
    }
    const left = readdirSync(path.join(root, 'src')).filter((n) => n !== 'a.ts');
    assert.equal(left.length, 1, left.join(', '));
    assert.match(left[0]!, /^\.a\.ts\.[0-9a-f]{24}\.ticket-runner\.tmp$/);
    // Names it could not have made stay: another file's, a different digit count, the user's own.
    const decoys = [
      '.b.ts.0123456789abcdef01234567.ticket-runner.tmp',
      '.a.ts.0123456789abcdef0123456.ticket-runner.tmp',
      '.a.ts.backup',
      'a.ts.0123456789abcdef01234567.ticket-runner.tmp',
    ];
    for (const d of decoys) writeFileSync(path.join(root, 'src', d), 'mine\n');
    await ws.removeInterruptedWrite('src/a.ts');
    assert.deepEqual(readdirSync(path.join(root, 'src')).sort(), ['a.ts', ...decoys].sort());
    assert.equal(readFileSync(file, 'utf8'), 'old\n', 'the file itself is whole');
    await ws.removeInterruptedWrite('src/gone/none.ts');
  });

  it("removes a link planted under a temp file's name, never what it points at", async () => {
    writeFileSync(path.join(root, 'src', 'a.ts'), 'mine\n');
    const planted = path.join(root, 'src', `.a.ts.${'0f'.repeat(12)}.ticket-runner.tmp`);
    symlinkSync(path.join(outside, 'target.ts'), planted);
    await new FsWorkspace(root).removeInterruptedWrite('src/a.ts');
    assert.deepEqual(readdirSync(path.join(root, 'src')), ['a.ts']);
    assert.equal(readFileSync(path.join(outside, 'target.ts'), 'utf8'), 'untouched\n');
  });
});
