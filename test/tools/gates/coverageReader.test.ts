import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/tempWorkspace';

/**
 * V8 coverage's reader thread (`startCoverageReader`, `dist/coverageWorker.js`) as the coverage
 * runner uses it: started with the test run, asked once the run has ended. Real V8 coverage of a
 * real node process. TypeScript (9 MB) loads in the reader only for a measured file no process
 * loaded: each measured run used to pay for it after its tests ended. The reader runs in a child
 * process whose preload logs every load of TypeScript, in any thread.
 */

/** Logs each load of TypeScript, with the thread that asked; NODE_OPTIONS preloads run in worker threads too. */
const TS_LOG_HOOK = `
const Module = require('node:module');
const { threadId } = require('node:worker_threads');
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  if (/(^|\\/)typescript(\\.js)?$/.test(request)) process.stderr.write('TYPESCRIPT LOADED in thread ' + threadId + '\\n');
  return load.call(this, request, parent, ...rest);
};
`;

/** What the child runs: a reader started, the coverage written, then the question; or a reader disposed unasked. */
const CHILD = `
import { startCoverageReader } from ${JSON.stringify(path.join(REPO_ROOT, 'src', 'node', 'gates', 'coverageThread.ts'))};
const [mode, dir, root, ...measure] = process.argv.slice(2);
const reader = startCoverageReader(${JSON.stringify(path.join(REPO_ROOT, 'dist', 'coverageWorker.js'))});
if (mode === 'dispose') {
  reader.dispose();
  console.log(JSON.stringify({ disposed: true }));
} else {
  reader.collect(dir, root, measure, undefined).then(
    (r) => console.log(JSON.stringify(r)),
    (e) => console.log(JSON.stringify({ error: String(e.message) })),
  );
}
`;

describe('the coverage reader: started with the test run, asked when it ends; TypeScript only for a file no test loaded', function () {
  this.timeout(60_000);
  let dir: string;
  let covDir: string;
  let hook: string;
  let child: string;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'coverage-reader-'));
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'used.js'), 'exports.twice = (n) => {\n  if (n > 10) {\n    return 0;\n  }\n  return n * 2;\n};\n');
    writeFileSync(path.join(dir, 'src', 'types.ts'), 'export interface Post {\n  id: number;\n}\n');
    writeFileSync(path.join(dir, 'src', 'never.ts'), 'export function never(): number {\n  return 1;\n}\n');
    writeFileSync(path.join(dir, 'main.js'), "const { twice } = require('./src/used.js');\nconsole.log(twice(2));\n");
    covDir = path.join(dir, 'coverage');
    const run = spawnSync(process.execPath, ['main.js'], {
      cwd: dir,
      env: { ...process.env, NODE_V8_COVERAGE: covDir, NODE_OPTIONS: '' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(readdirSync(covDir).length > 0, 'node wrote its coverage');
    hook = path.join(dir, 'tsLog.cjs');
    writeFileSync(hook, TS_LOG_HOOK);
    child = path.join(dir, 'child.ts');
    writeFileSync(child, CHILD);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const read = (...args: string[]) => {
    // In NODE_OPTIONS, not on the command line: only its preloads run in worker threads as well.
    const r = spawnSync(process.execPath, ['--import', 'tsx', child, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_OPTIONS: `--require ${hook}` },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, `the child ended with ${String(r.status)}: ${r.stderr}`);
    const answer = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      files?: { file: string; lines: [number, number][] }[];
      unloaded?: string[];
      error?: string;
      disposed?: boolean;
    };
    return { answer, typescriptLoads: r.stderr.split('\n').filter((l) => l.startsWith('TYPESCRIPT LOADED')) };
  };

  it('every measured file was loaded: the lines that ran and the branch that did not, and TypeScript never loaded', () => {
    const { answer, typescriptLoads } = read('collect', covDir, dir, 'src/used.js');
    assert.equal(answer.error, undefined);
    const hits = new Map(answer.files?.find((f) => f.file === 'src/used.js')?.lines);
    assert.ok((hits.get(5) ?? 0) > 0, `line 5 (return n * 2) ran: ${JSON.stringify([...hits])}`);
    assert.equal(hits.get(3), 0, 'line 3 (return 0) never ran');
    assert.deepEqual(answer.unloaded, []);
    assert.deepEqual(typescriptLoads, [], 'the reader did not load TypeScript');
  });

  it('a measured TypeScript file no process loaded: TypeScript loads in the reader, the file counts at 0, and a types-only one is left out', () => {
    const { answer, typescriptLoads } = read('collect', covDir, dir, 'src/used.js', 'src/never.ts', 'src/types.ts');
    assert.equal(answer.error, undefined);
    assert.deepEqual(answer.unloaded, ['src/never.ts']);
    const never = answer.files?.find((f) => f.file === 'src/never.ts')?.lines ?? [];
    assert.ok(
      never.some(([line]) => line === 2) && never.every(([, count]) => count === 0),
      `every executable line of never.ts at 0, its body among them: ${JSON.stringify(never)}`,
    );
    assert.equal(
      answer.files?.find((f) => f.file === 'src/types.ts'),
      undefined,
    );
    assert.ok(
      typescriptLoads.length > 0 && typescriptLoads.every((l) => !l.endsWith('thread 0')),
      `TypeScript loaded in the reader's thread, not the caller's: ${typescriptLoads.join('; ')}`,
    );
  });

  it('a reader never asked (the test run failed or was cancelled) ends when disposed, and holds nothing open', () => {
    const { answer, typescriptLoads } = read('dispose');
    assert.equal(answer.disposed, true);
    assert.deepEqual(typescriptLoads, []);
  });

  it('a coverage folder that is not there: the reader says why, word for word', () => {
    const { answer } = read('collect', path.join(dir, 'missing'), dir, 'src/used.js');
    assert.match(answer.error ?? '', /ENOENT.*missing/);
  });
});
