import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseGateList } from '../../../src/core/stages/common/gateConfig';
import { changedLines, unifiedDiff } from '../../../src/core/stages/common/diff';
import { ImportReach } from '../../../src/core/stages/checks/reach';
import { dependentsOf, packageOf, workspacePackages } from '../../../src/core/stages/common/workspacePackages';
import { compareRegression } from '../../../src/core/stages/gates/repair';
import { verifiedBlockers } from '../../../src/core/stages/gates/reviewers';
import { validateTestPlan } from '../../../src/core/stages/gates/testPlanCheck';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { structuredSpecFromZod } from '../../../src/core/stages/common/structured';
import type { WorkspacePort } from '../../../src/core/ports/workspace';
import type { TestRunResult } from '../../../src/core/schema/checks';
import { ReviewVerdict, TestReview } from '../../../src/core/schema/gates';
import { parseTscOutput } from '../../../src/node/gates/tscTypeCheck';
import { unloadedLineHits } from '../../../src/node/gates/unloadedLines';
import { collectV8Coverage, scriptLineHits } from '../../../src/node/gates/v8Coverage';
import { TreeSitterParser } from '../../../src/node/parse/treeSitterParser';
import { aManifest } from '../../support/aManifest';
import { REPO_ROOT } from '../../support/tempWorkspace';

/** The gates' deterministic pieces, each on its own, without a run. */

function memoryWorkspace(files: Record<string, string>): WorkspacePort {
  return {
    readFile: (p) => Promise.resolve(files[p] ?? null),
    writeFile: (p, c) => Promise.resolve(void (files[p] = c)),
    deleteFile: (p) => Promise.resolve(void delete files[p]),
    exists: (p) => Promise.resolve(p in files),
    listFiles: () => Promise.resolve(Object.keys(files)),
    fileMode: (p) => Promise.resolve(p in files ? 0o644 : null),
    setFileMode: () => Promise.resolve(),
    removeEmptyFolder: () => Promise.resolve(false),
  };
}

describe('gates: the cumulative diff', () => {
  it('finds the added and rewritten lines of the new content', () => {
    assert.deepEqual(changedLines('a\nb\nc\n', 'a\nB\nc\nd\n'), [2, 4]);
    assert.deepEqual(changedLines(null, 'x\ny'), [1, 2]);
    assert.deepEqual(changedLines('same\n', 'same\n'), []);
    assert.deepEqual(changedLines('a\r\nb\r\n', 'a\nb\n'), [], 'line endings are not a change');
  });

  it('writes a unified diff with hunk headers and context', () => {
    const before = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 6', 'line six');
    assert.equal(
      unifiedDiff({ path: 'src/a.ts', before, after }, 2),
      ['--- a/src/a.ts', '+++ b/src/a.ts', '@@ -4,5 +4,5 @@', ' line 4', ' line 5', '-line 6', '+line six', ' line 7', ' line 8'].join(
        '\n',
      ),
    );
    assert.match(
      unifiedDiff({ path: 'src/new.ts', before: null, after: 'x\n' }),
      /^--- \/dev\/null\n\+\+\+ b\/src\/new\.ts\n@@ -0,0 \+1 @@\n\+x$/,
    );
  });
});

describe('gates: which errors the change reaches', () => {
  it('follows relative imports, through barrels and .js specifiers, to a changed file', async () => {
    const ws = memoryWorkspace({
      'src/format/summary.ts': 'export const s = 1;',
      'src/index.ts': "export { s } from './format/summary';",
      'src/reports/digest.ts': "import { s } from '../index.js';",
      'src/other.ts': "import x from 'lodash';\nimport { y } from './lonely';",
      'src/lonely.ts': 'export const y = 2;',
    });
    const reach = new ImportReach(ws, new Set(['src/format/summary.ts']));
    assert.equal(await reach.reaches('src/reports/digest.ts'), true);
    assert.equal(await reach.reaches('src/format/summary.ts'), true);
    assert.equal(await reach.reaches('src/other.ts'), false);
  });

  it("follows tsconfig paths (through extends, with comments) and package.json imports: an error behind an alias is the change's", async () => {
    // The hostile case: an alias-only importer broken by the change must not look unrelated,
    // or the type-check gate passes a run that broke it.
    const ws = memoryWorkspace({
      'tsconfig.json': '{\n  // the project config\n  "extends": "./tsconfig.base.json",\n  "include": ["src"],\n}',
      'tsconfig.base.json':
        '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./src/*"], "config": ["./src/config/index.ts"] } } }',
      'package.json': '{ "imports": { "#lib/*": { "types": "./src/lib/*.ts", "default": "./dist/lib/*.js" } } }',
      'src/lib/money.ts': 'export const m = 1;',
      'src/config/index.ts': 'export const c = 1;',
      'src/cart/cart.ts': "import { m } from '@/lib/money.js';",
      'src/orders/checkout.ts': "import { m } from '#lib/money';",
      'src/app.ts': "import { c } from 'config';",
      'src/npm.ts': "import { z } from 'zod';\nimport { q } from '@/nowhere.js';",
    });
    const reach = new ImportReach(ws, new Set(['src/lib/money.ts', 'src/config/index.ts']));
    assert.equal(await reach.reaches('src/cart/cart.ts'), true);
    assert.equal(await reach.reaches('src/orders/checkout.ts'), true);
    assert.equal(await reach.reaches('src/app.ts'), true);
    assert.equal(await reach.reaches('src/npm.ts'), false);
  });
});

describe('gates: npm workspaces', () => {
  const monorepo = () =>
    memoryWorkspace({
      'package.json': '{ "workspaces": ["packages/*", "tools/cli"] }',
      'packages/money/package.json':
        '{ "name": "@m/money", "exports": { ".": "./src/index.ts", "./fx": { "types": "./dist/fx.d.ts", "default": "./dist/fx.js" } } }',
      'packages/money/src/index.ts': "export * from './money.js';",
      'packages/money/src/money.ts': 'export const m = 1;',
      'packages/money/src/fx.ts': 'export const rate = 1;',
      'packages/money/node_modules/dep/package.json': '{ "name": "dep" }',
      'packages/invoice/package.json': '{ "name": "@m/invoice", "dependencies": { "@m/money": "*", "zod": "4" } }',
      'packages/invoice/src/index.ts': "export * from './invoice.js';",
      'packages/invoice/src/invoice.ts': "import { m } from '@m/money';",
      'packages/invoice/src/rates.ts': "import { rate } from '@m/money/fx';",
      'packages/invoice/src/plain.ts': "import { z } from 'zod';",
      'tools/cli/package.json': '{ "name": "@m/cli", "devDependencies": { "@m/invoice": "*" } }',
      'tools/cli/main.ts': "import { x } from '@m/invoice';",
      'docs/package.json': '{ "name": "docs" }',
    });

  it('reads the packages the workspaces globs name, and who depends on whom, transitively', async () => {
    const pkgs = await workspacePackages(monorepo());
    assert.deepEqual(
      pkgs.map((p) => [p.dir, p.name, p.dependsOn]),
      [
        ['packages/invoice', '@m/invoice', ['@m/money']],
        ['packages/money', '@m/money', []],
        ['tools/cli', '@m/cli', ['@m/invoice']],
      ],
    );
    assert.equal(packageOf(pkgs, 'packages/money/src/money.ts')?.name, '@m/money');
    assert.equal(packageOf(pkgs, 'docs/a.ts'), undefined);
    assert.deepEqual(
      dependentsOf(pkgs, [packageOf(pkgs, 'packages/money/src/money.ts')!]).map((p) => p.name),
      ['@m/invoice', '@m/cli'],
    );
    assert.deepEqual(
      dependentsOf(pkgs, [packageOf(pkgs, 'packages/invoice/src/invoice.ts')!]).map((p) => p.name),
      ['@m/cli'],
    );
    assert.deepEqual(await workspacePackages(memoryWorkspace({ 'package.json': '{}' })), []);
  });

  it("an import of a workspace package by name reaches every changed file of it, and its entry's imports (dist/ read as src/)", async () => {
    // The hostile case: the app imports the library by its package name, never by a path; an
    // error the library's change causes there must not look unrelated.
    const changed = new ImportReach(monorepo(), new Set(['packages/money/src/money.ts']));
    assert.equal(await changed.reaches('packages/invoice/src/invoice.ts'), true);
    assert.equal(
      await changed.reaches('tools/cli/main.ts'),
      true,
      "through the invoice package's entry (src/index.ts, with no exports field)",
    );
    assert.equal(await changed.reaches('packages/invoice/src/plain.ts'), false);
    const fx = new ImportReach(monorepo(), new Set(['packages/money/src/fx.ts']));
    assert.equal(await fx.reaches('packages/invoice/src/rates.ts'), true);
  });
});

describe('gates: tsc output', () => {
  it('parses file diagnostics, their continuation lines, and global ones', () => {
    const root = path.resolve('/ws');
    const out = [
      "src/reports/digest.ts(5,56): error TS2345: Argument of type 'X' is not assignable to parameter of type 'Y'.",
      "  Types of parameters 'options' and 'index' are incompatible.",
      'error TS5083: Cannot read file tsconfig.base.json.',
      'Found 2 errors.',
    ].join('\n');
    const ds = parseTscOutput(out, root, path.join(root, 'tsconfig.json'));
    assert.deepEqual(
      ds.map((d) => [d.file, d.line, d.column, d.code, d.category]),
      [
        ['src/reports/digest.ts', 5, 56, 'TS2345', 'error'],
        ['tsconfig.json', 1, 1, 'TS5083', 'error'],
      ],
    );
    assert.match(ds[0]!.message, /\nTypes of parameters 'options' and 'index' are incompatible\.$/);
  });
});

describe('gates: V8 coverage', () => {
  it('counts a mapped script by its original lines, through its source map', () => {
    // Generated: line 0 `aaaaaaaaa;bbbb` (cols 0 and 9 map to original lines 0 and 9), line 1 `cc` (original line 10).
    // AAAA: col 0 -> line 0; SASA: col +9 -> line +9; ;AACA: the next generated line -> line +1.
    const script = {
      url: 'file:///ws/a.ts',
      functions: [
        {
          ranges: [
            { startOffset: 0, endOffset: 17, count: 1 },
            { startOffset: 9, endOffset: 14, count: 0 },
          ],
        },
      ],
    };
    const map = { lineLengths: [14, 2], data: { version: 3, sources: ['a.ts'], mappings: 'AAAA,SASA;AACA' } };
    assert.deepEqual(
      [...scriptLineHits(script, map, undefined)].sort((a, b) => a[0] - b[0]),
      [
        [1, 1],
        [10, 0],
        [11, 1],
      ],
    );
  });

  it('counts a plain script line by the innermost range around its first character', () => {
    const source = ['function f(x) {', '  if (x) {', '    return 1;', '  }', '  // a comment', '  return 2;', '}', 'f(0);'].join('\n');
    const at = (line: number) =>
      source
        .split('\n')
        .slice(0, line - 1)
        .join('\n').length + 1;
    const script = {
      url: 'file:///ws/a.js',
      functions: [
        { ranges: [{ startOffset: 0, endOffset: source.length, count: 1 }] },
        {
          ranges: [
            { startOffset: 0, endOffset: at(8) - 1, count: 1 },
            { startOffset: at(2) + 9, endOffset: at(4) + 3, count: 0 },
          ],
        },
      ],
    };
    const hits = scriptLineHits(script, undefined, source);
    assert.deepEqual(
      [...hits].sort((a, b) => a[0] - b[0]),
      [
        [1, 1],
        [2, 1],
        [3, 0],
        [4, 0],
        [6, 1],
        [7, 1],
        [8, 1],
      ],
    );
  });

  describe('the coverage folder, which the code under test can write into', () => {
    let root: string;
    let dir: string;
    const source = 'export function f(x: number): number {\n  return x + 1;\n}\n';
    const url = () => pathToFileURL(path.join(root, 'src', 'a.js')).href;
    const write = (name: string, ranges: { startOffset: number; endOffset: number; count: number }[]) =>
      writeFileSync(path.join(dir, name), JSON.stringify({ result: [{ url: url(), functions: [{ ranges }] }] }));
    beforeEach(() => {
      root = mkdtempSync(path.join(tmpdir(), 'tr-v8-'));
      dir = path.join(root, 'cov');
      mkdirSync(dir);
      mkdirSync(path.join(root, 'src'));
      writeFileSync(path.join(root, 'src', 'a.js'), 'function f(x) {\n  return x + 1;\n}\nmodule.exports = { f };\n');
      writeFileSync(path.join(root, 'src', 'types.ts'), 'export interface T {\n  a: number;\n}\nexport type U = T[];\n');
      writeFileSync(path.join(root, 'src', 'b.ts'), `import type { T } from './types';\n${source}export const t: T = { a: 1 };\n`);
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('a file in the coverage folder that is not V8 coverage (or not JSON) makes the measure unusable, naming the file', async () => {
      writeFileSync(
        path.join(dir, 'coverage-123-1700000000000-0.json'),
        JSON.stringify({ result: [{ url: url(), functions: [{ ranges: [{ startOffset: 0, endOffset: '40', count: 1 }] }] }] }),
      );
      await assert.rejects(
        collectV8Coverage(dir, root, ['src/a.js']),
        /coverage-123-1700000000000-0\.json in the coverage folder is not V8 coverage as Node writes it: \$\.result\.0\.functions\.0\.ranges\.0\.endOffset: /,
      );
      writeFileSync(path.join(dir, 'coverage-123-1700000000000-0.json'), '{"result": [');
      await assert.rejects(collectV8Coverage(dir, root, ['src/a.js']), /is not V8 coverage as Node writes it: not JSON/);
    });

    it("reads Node's own files; a file Node would not name, or a range past its script, makes the whole measure unusable", async () => {
      write('coverage-123-1700000000000-0.json', [{ startOffset: 0, endOffset: 40, count: 1 }]);
      assert.deepEqual(
        (await collectV8Coverage(dir, root, ['src/a.js'])).files[0]?.lines.map(([, c]) => c),
        [1, 1, 1, 1],
      );
      write('coverage-forged.json', [{ startOffset: 0, endOffset: 40, count: 1 }]);
      await assert.rejects(
        collectV8Coverage(dir, root, ['src/a.js']),
        /coverage-forged\.json in the coverage folder is not a file Node writes/,
      );
      unlinkSync(path.join(dir, 'coverage-forged.json'));
      write('coverage-124-1700000000001-0.json', [{ startOffset: 0, endOffset: 1e9, count: 1 }]);
      await assert.rejects(collectV8Coverage(dir, root, ['src/a.js']), /has a range \(0-1000000000\) outside its script of \d+ characters/);
    });

    it("believes one main-thread file per process of the test command: a second file for one pid makes the measure unusable; a pid the command did not have and a worker thread's file are not read", async () => {
      write('coverage-123-1700000000000-0.json', [{ startOffset: 0, endOffset: 40, count: 0 }]);
      write('coverage-123-1700000000005-1.json', [{ startOffset: 0, endOffset: 40, count: 1 }]);
      const measured = await collectV8Coverage(dir, root, ['src/a.js'], new Set([123]));
      assert.deepEqual(
        measured.files[0]?.lines.map(([, c]) => c),
        [0, 0, 0, 0],
        "the worker thread's file does not count",
      );
      write('coverage-124-1700000000001-0.json', [{ startOffset: 0, endOffset: 40, count: 1 }]);
      assert.deepEqual(
        (await collectV8Coverage(dir, root, ['src/a.js'], new Set([123]))).files[0]?.lines.map(([, c]) => c),
        [0, 0, 0, 0],
        'what only an unknown process claims counts as not run',
      );
      unlinkSync(path.join(dir, 'coverage-124-1700000000001-0.json'));
      write('coverage-123-1700000000009-0.json', [{ startOffset: 0, endOffset: 40, count: 1 }]);
      await assert.rejects(
        collectV8Coverage(dir, root, ['src/a.js'], new Set([123])),
        /the coverage measure was written by something other than Node: coverage-123-1700000000000-0\.json and coverage-123-1700000000009-0\.json both name process 123/,
      );
    });

    it('a changed file no test loaded has its executable lines at 0; a types-only module has none and stays out', async () => {
      const { files, unloaded } = await collectV8Coverage(dir, root, ['src/b.ts', 'src/types.ts', 'src/a.js']);
      assert.deepEqual(files.map((f) => f.file).sort(), ['src/a.js', 'src/b.ts']);
      assert.deepEqual(unloaded.sort(), ['src/a.js', 'src/b.ts']);
      const b = files.find((f) => f.file === 'src/b.ts')!;
      assert.ok(b.lines.length >= 3 && b.lines.every(([, c]) => c === 0), JSON.stringify(b.lines));
      assert.ok(!b.lines.some(([l]) => l === 1), 'the type-only import is no code');
      assert.deepEqual((await unloadedLineHits('src/types.ts', readFileSync(path.join(root, 'src', 'types.ts'), 'utf8'))).size, 0);
      // A barrel's imports and re-exports are wiring, not code a test could run.
      assert.deepEqual(
        [
          ...(
            await unloadedLineHits(
              'src/index.ts',
              "import { f } from './a';\nexport { g } from './b';\nexport * from './c';\nexport const h = f;\n",
            )
          ).keys(),
        ],
        [4],
      );
    });
  });
});

describe('gates: settings, regression, reviewers', () => {
  it('parses a gate list and refuses unknown names with the list', () => {
    assert.deepEqual(parseGateList('typecheck, lint,typecheck'), ['typecheck', 'lint']);
    assert.deepEqual(parseGateList('none'), []);
    assert.throws(
      () => parseGateList('typecheck,style'),
      /unknown gate style: the gates are typecheck, lint, build, projectTests, implementationReview, testReview, coverage/,
    );
  });

  it('a mini regression needs every test that ran before to pass, and no new failure', () => {
    const result = (cases: [string, 'passed' | 'failed' | 'skipped'][], status: TestRunResult['status'] = 'passed'): TestRunResult => ({
      status,
      framework: 'node:test',
      command: [],
      passed: 0,
      failed: 0,
      skipped: 0,
      durationMs: 0,
      cases: cases.map(([name, s]) => ({ name, status: s })),
      output: '',
    });
    const before = result(
      [
        ['a', 'passed'],
        ['b', 'failed'],
        ['c', 'skipped'],
      ],
      'failed',
    );
    assert.deepEqual(
      compareRegression(
        before,
        result([
          ['a', 'passed'],
          ['b', 'passed'],
        ]),
      ),
      { required: ['a', 'b'], failed: [], status: 'passed' },
    );
    assert.deepEqual(
      compareRegression(
        before,
        result(
          [
            ['a', 'failed'],
            ['b', 'passed'],
            ['d', 'failed'],
          ],
          'failed',
        ),
      ).failed,
      ['a', 'd'],
    );
    assert.deepEqual(compareRegression(before, result([['b', 'passed']])).failed, ['a'], 'a test that vanished did not pass');
    assert.deepEqual(compareRegression(undefined, result([], 'error')).failed, ['(the run itself: error)']);
  });

  it('keeps only the blockers whose file was shown and whose quote is in the inputs', () => {
    const prompt = 'diff:\n+  if (raw !== undefined &&\n+      Number.isNaN(Number(raw))) {';
    const { kept, dropped } = verifiedBlockers(
      [
        {
          file: 'src/handlers/posts.ts',
          claim: 'Infinity slips through',
          evidence: 'if (raw !== undefined && Number.isNaN(Number(raw))) {',
        },
        { file: 'src/elsewhere.ts', claim: 'not shown' },
        { claim: 'made up', evidence: 'Number.parseFloat(raw)' },
      ],
      prompt,
      new Set(['src/handlers/posts.ts']),
    );
    assert.deepEqual(
      kept.map((b) => b.claim),
      ['Infinity slips through'],
    );
    assert.equal(dropped.length, 2);
  });

  it('validates verdicts with zod, and gives the providers an object schema for each', () => {
    assert.equal(ReviewVerdict.safeParse({ verdict: 'fail', blockers: [] }).success, false);
    assert.equal(ReviewVerdict.safeParse({ verdict: 'pass', blockers: [{ claim: 'x' }] }).success, false);
    assert.equal(ReviewVerdict.safeParse({ verdict: 'pass' }).success, true);
    assert.equal(TestReview.safeParse({ verdict: 'pass', criteria: [{ id: 'AC1', covered: true }] }).success, true);
    for (const schema of [ReviewVerdict, TestReview]) assert.equal(structuredSpecFromZod('t', 'd', schema).jsonSchema['type'], 'object');
  });
});

describe('gates: a proposed test plan is validated before any operator sees it', function () {
  this.timeout(30_000);
  const manifest = aManifest({ scope: { write: [{ path: 'src/a.ts', exists: true }] } });
  const parser = new TreeSitterParser({
    wasmDir: path.join(REPO_ROOT, 'node_modules', 'tree-sitter-typescript'),
    runtimeWasmDir: path.join(REPO_ROOT, 'node_modules', 'web-tree-sitter'),
  });
  const deps = { workspace: memoryWorkspace({}), parser } as unknown as PipelineDeps;
  const plan = (actual: string, file = 'test/a.test.ts') => ({
    files: [{ path: file, suite: 's', cases: [{ name: 'c', expect: [{ kind: 'truthy', actual }] }] }],
  });
  const signal = new AbortController().signal;

  it('accepts a plan that parses, saying the type-check was not available', async () => {
    const v = await validateTestPlan(deps, manifest, plan('a(1) === 2'), signal);
    assert.deepEqual([v.ok, v.checks], [true, { schema: 'passed', parse: 'passed', typecheck: 'unavailable' }]);
  });

  it('names the place of an expression that does not parse, a bad schema, and a test over the code', async () => {
    const bad = await validateTestPlan(deps, manifest, plan('a(1) ==='), signal);
    assert.equal(bad.ok, false);
    assert.match(
      bad.problems[0]!,
      /^parse: files\[0\] \(test\/a\.test\.ts\) cases\[0\] "c" expect\[0\]\.actual: the expression "a\(1\) ===" does not parse/,
    );
    assert.match((await validateTestPlan(deps, manifest, { files: [] }, signal)).problems[0]!, /^schema: files: /);
    assert.match((await validateTestPlan(deps, manifest, plan('true', 'src/a.ts'), signal)).problems[0]!, /src\/a\.ts is in scope\.write/);
  });
});
