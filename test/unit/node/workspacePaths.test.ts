import assert from 'node:assert/strict';
import * as path from 'node:path';
import { isInside, workspacePath } from '../../../src/node/workspacePaths';

describe('workspace containment (isInside)', () => {
  const ws = path.resolve('/tmp/tr-contain/ws');
  const sibling = path.resolve('/tmp/tr-contain/ws-other');

  it('refuses a sibling folder that shares the prefix, by absolute path and through ..', () => {
    assert.equal(isInside(ws, sibling), false);
    assert.equal(isInside(ws, path.join(sibling, 'secret.ts')), false);
    assert.equal(isInside(ws, '../ws-other/secret.ts'), false);
    assert.equal(isInside(ws, path.join(ws, '..', 'ws-other', 'secret.ts')), false);
    assert.equal(isInside(ws, `${ws}-other`), false);
  });

  it('refuses the parent and anything above it', () => {
    assert.equal(isInside(ws, '..'), false);
    assert.equal(isInside(ws, path.dirname(ws)), false);
    assert.equal(isInside(ws, '/etc/passwd'), false);
    assert.equal(isInside(ws, 'src/../../ws-other/a.ts'), false);
  });

  it('accepts the folder itself and what is inside, a name that starts with two dots included', () => {
    assert.equal(isInside(ws, ws), true);
    assert.equal(isInside(ws, 'src/a.ts'), true);
    assert.equal(isInside(ws, path.join(ws, 'src', 'a.ts')), true);
    assert.equal(isInside(ws, 'src/../README.md'), true);
    assert.equal(isInside(ws, '..notes/a.md'), true);
  });

  it('a path in the sibling stays absolute in findings, never taken for one of the workspace', () => {
    assert.equal(workspacePath(ws, path.join(sibling, 'a.ts')), path.join(sibling, 'a.ts').split(path.sep).join('/'));
    assert.equal(workspacePath(ws, path.join(ws, 'src', 'a.ts')), 'src/a.ts');
  });
});
