import assert from 'node:assert/strict';
import type ts from 'typescript';
import { rankFixes } from '../../../src/node/diagnostics/codeFixes';

const fix = (description: string): ts.CodeFixAction => ({ fixName: 'import', description, changes: [] });

describe('code fix ranking', () => {
  it('puts imports from a barrel after imports from the declaring module, keeping the rest in order', () => {
    const ranked = rankFixes([
      fix('Add import from ".."'),
      fix('Add import from "./lib/index"'),
      fix('Add import from "../store/postStore"'),
      fix("Change spelling to 'getPost'"),
    ]);
    assert.deepEqual(
      ranked.map((f) => f.description),
      ['Add import from "../store/postStore"', "Change spelling to 'getPost'", 'Add import from ".."', 'Add import from "./lib/index"'],
    );
  });
});
