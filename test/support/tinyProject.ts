import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { renderCoderFile } from '../../src/core/stages/coder/coderAnswer';
import { REPO_ROOT } from './tempWorkspace';

/**
 * The smallest project a ticket runs in, for batches of many tickets: one CommonJS source file,
 * plain JavaScript tests on the node test runner (no loader: tsx costs each test process about
 * half a second of CPU), no tsconfig and no ESLint config (those checks are skipped), so that a
 * run's own time is mostly its model calls. Every ticket TINY-<n> adds the same function, each
 * in its own tree.
 */
export function tinyProject(tickets: number): { root: string; ids: string[]; dispose: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-tiny-'));
  const root = path.join(base, 'tiny');
  mkdirSync(path.join(root, 'src'), { recursive: true });
  mkdirSync(path.join(root, '.tickets'));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: 'tiny', private: true, type: 'commonjs', scripts: { test: 'node --test test/**/*.test.js' } }, null, 2),
  );
  writeFileSync(path.join(root, 'src', 'math.js'), 'exports.one = 1;\n');
  const ids = Array.from({ length: tickets }, (_, i) => `TINY-${i + 1}`);
  for (const id of ids) {
    const ticket = {
      id,
      title: 'double',
      description: 'Add double(n) to src/math.js: n times two.',
      scope: { write: ['src/math.js'], read: [] },
      acceptance: [{ id: 'AC1', text: 'double(2) is 4' }],
      testPlan: {
        files: [
          {
            path: `test/ticket/${id}.test.js`,
            suite: `${id} double`,
            imports: [{ from: '../../src/math', names: ['double'] }],
            cases: [{ name: 'doubles', criterion: 'AC1', arrange: [], expect: [{ kind: 'equal', actual: 'double(2)', expected: '4' }] }],
          },
        ],
      },
    };
    writeFileSync(path.join(root, '.tickets', `${id}.ticket.json`), JSON.stringify(ticket, null, 2));
  }
  return { root, ids, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

/** The Coder's answer every tiny ticket passes with. */
export const TINY_ANSWER = renderCoderFile(
  'src/math.js',
  'exports.one = 1;\n\nexports.double = function double(n) {\n  return n * 2;\n};\n',
);
