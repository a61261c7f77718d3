import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import type { TestFramework } from '../../../src/core/schema/testPlan';
import {
  copyFixture,
  FIXTURES,
  FRAMEWORK_DIR,
  fixturePlan,
  loadPlan,
  makeTempDir,
  REPO_ROOT,
  writeRendered,
} from '../../support/materializerFixtures';

/**
 * jest's globals come from @types/jest, which this repository does not install; a workspace that
 * writes jest tests in TypeScript has them. @jest/globals declares the same functions.
 */
const JEST_GLOBALS = `import type * as jest from '@jest/globals';

declare global {
  const describe: typeof jest.describe;
  const it: typeof jest.it;
  const expect: typeof jest.expect;
  const beforeAll: typeof jest.beforeAll;
  const beforeEach: typeof jest.beforeEach;
  const afterEach: typeof jest.afterEach;
  const afterAll: typeof jest.afterAll;
}
`;

/** The TypeScript fixture whose implementation each framework's rendering is checked against. */
const CHECKED: readonly { framework: TestFramework; fixture: TestFramework }[] = [
  { framework: 'node:test', fixture: 'node:test' },
  { framework: 'mocha', fixture: 'node:test' },
  { framework: 'vitest', fixture: 'vitest' },
  { framework: 'jest', fixture: 'vitest' },
];

function diagnosticsText(diagnostics: readonly ts.Diagnostic[], root: string): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
}

describe('materializer: the rendered TypeScript type-checks under strict', function () {
  this.timeout(60_000);
  let root = '';

  before(() => {
    root = makeTempDir('typecheck');
    // The copies resolve vitest, @jest/globals and @types from this repository, as a workspace's own would.
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'junction');
  });

  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Renders each framework's file into its own copy of the fixture; returns the files to check. */
  function render(entries: typeof CHECKED): string[] {
    return entries.flatMap(({ framework, fixture }) => {
      const dir = path.join(root, FRAMEWORK_DIR[framework]);
      copyFixture(fixture, dir, 'correct');
      // With each fixture's properties (fast-check's types come from this repository, as a workspace's own would).
      const plans = [fixturePlan(fixture), loadPlan(path.join(FIXTURES, FRAMEWORK_DIR[fixture], 'properties.json'))];
      const files = plans.flatMap((plan) => writeRendered(dir, plan, framework, { language: 'ts', moduleKind: 'esm' }));
      return files.map((file) => path.join(dir, file));
    });
  }

  function check(rootNames: string[], types: string[]): string {
    const program = ts.createProgram(rootNames, {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true,
      isolatedModules: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      // Without esModuleInterop, so the node:assert import is shown to need none.
      esModuleInterop: false,
      types,
      typeRoots: [path.join(root, 'node_modules/@types')],
    });
    return diagnosticsText(ts.getPreEmitDiagnostics(program), root);
  }

  it('node:test, mocha and vitest', () => {
    // One program for the three: mocha's global declarations do not clash with the others' imports.
    const files = render(CHECKED.filter((entry) => entry.framework !== 'jest'));
    assert.equal(check(files, ['node', 'mocha']), '');
  });

  it('jest, with its globals declared as @types/jest would', () => {
    const files = render(CHECKED.filter((entry) => entry.framework === 'jest'));
    const globals = path.join(root, 'jest-globals.d.ts');
    fs.writeFileSync(globals, JEST_GLOBALS);
    assert.equal(check([...files, globals], ['node']), '');
  });
});
