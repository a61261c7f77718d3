import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { TestFramework } from '../../../src/core/schema/testPlan';
import { TestPlan } from '../../../src/core/schema/testPlan';
import { materialize } from '../../../src/core/stages/materializer';
import { workerWorkspaceDiagnostics } from '../../../src/node/diagnostics/workerPorts';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture, type FixtureName, REPO_ROOT } from '../../support/tempWorkspace';

/**
 * A rendered property in a project without fast-check of its own (none in its package.json, none
 * in its node_modules): its tests run on Ticket Runner's copy, vitest's (which resolves imports
 * with vite) and jest's included, and its type check sees the copy's types.
 */

const SEED = 424_242;

interface Project {
  fixture: FixtureName;
  framework: TestFramework;
  moduleKind: 'esm' | 'cjs';
  /** A property the fixture's code holds (AC1) and one it breaks (AC2), over `subject` from `from`. */
  from: string;
  subject: string;
  holds: { arbitrary: string; predicate: string };
  breaks: { arbitrary: string; predicate: string };
}

const PROJECTS: Project[] = [
  {
    fixture: 'shop-esm',
    framework: 'vitest',
    moduleKind: 'esm',
    from: '../../src/lib/csv.js',
    subject: 'csvCell',
    holds: { arbitrary: 'fc.integer()', predicate: 'csvCell(n) === String(n)' },
    breaks: { arbitrary: 'fc.string()', predicate: 'csvCell(n) === n' },
  },
  {
    fixture: 'inventory-jest',
    framework: 'jest',
    moduleKind: 'cjs',
    from: '../../src/sku',
    subject: 'isSku',
    holds: { arbitrary: 'fc.integer({ min: 0, max: 99999 })', predicate: "isSku('BOLT-' + String(n).padStart(5, '0'))" },
    breaks: { arbitrary: 'fc.string()', predicate: 'isSku(n)' },
  },
];

function planOf(p: Project): TestPlan {
  const aCase = (criterion: string, name: string, x: { arbitrary: string; predicate: string }) => ({
    name,
    criterion,
    expect: [{ kind: 'property', arbitraries: [x.arbitrary], params: ['n'], predicate: x.predicate }],
  });
  return TestPlan.parse({
    files: [
      {
        path: 'test/ticket/OWN-1.test.ts',
        suite: 'OWN-1',
        imports: [{ from: p.from, names: [p.subject] }],
        cases: [aCase('AC1', 'holds', p.holds), aCase('AC2', 'breaks', p.breaks)],
      },
    ],
  });
}

/** A copy of the fixture without fast-check, the property rendered into it. */
function withoutFastCheck(p: Project): { root: string; file: string; dispose: () => void } {
  const ws = copyFixture(p.fixture);
  const manifest = JSON.parse(readFileSync(path.join(ws.root, 'package.json'), 'utf8')) as {
    dependencies?: object;
    devDependencies?: object;
  };
  assert.ok(!('fast-check' in { ...manifest.dependencies, ...manifest.devDependencies }), `${p.fixture} declares no fast-check`);
  // The copy links this repository's packages, fast-check among them: not this one.
  rmSync(path.join(ws.root, 'node_modules', 'fast-check'), { force: true });
  const [rendered] = materialize(planOf(p), p.framework, { language: 'ts', moduleKind: p.moduleKind });
  mkdirSync(path.dirname(path.join(ws.root, rendered!.path)), { recursive: true });
  writeFileSync(path.join(ws.root, rendered!.path), rendered!.content);
  return { root: ws.root, file: rendered!.path, dispose: ws.dispose };
}

describe('a rendered property in a project without fast-check of its own', function () {
  this.timeout(180_000);

  for (const p of PROJECTS) {
    it(`${p.framework} (${p.fixture}): runs on Ticket Runner's copy, with the run's seed and a shrunk counterexample`, async () => {
      const ws = withoutFastCheck(p);
      const runner = new ProcessTestRunner({
        root: ws.root,
        nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
        fallbackDir: REPO_ROOT,
        nodePath: process.execPath,
      });
      try {
        const r = await runner.run(
          { framework: p.framework, files: [ws.file], timeoutMs: 90_000, propertySeed: SEED },
          new AbortController().signal,
        );
        const status = (criterion: string) => r.cases.find((c) => c.name.includes(`[${criterion}]`));
        assert.equal(status('AC1')?.status, 'passed', r.output);
        assert.equal(status('AC2')?.status, 'failed', r.output);
        assert.match(status('AC2')?.message ?? '', new RegExp(`seed: ${SEED}\\b`));
        assert.match(status('AC2')?.message ?? '', /Counterexample: \[.+\]/);
      } finally {
        runner.dispose();
        ws.dispose();
      }
    });
  }

  it("type-checks against the copy's types: no unresolved fast-check, and a wrong use of it is an error", async () => {
    const p = PROJECTS[0]!;
    const ws = withoutFastCheck(p);
    const diagnostics = workerWorkspaceDiagnostics(ws.root, { script: path.join(REPO_ROOT, 'dist', 'languageWorker.js') })!;
    try {
      const clean = await diagnostics.check([ws.file], new AbortController().signal);
      assert.deepEqual(
        clean.diagnostics.filter((d) => d.file === ws.file && d.category === 'error'),
        [],
        'the rendered property type-checks',
      );
      // The types are fast-check's, not `any`: an arbitrary that does not exist is an error.
      const text = readFileSync(path.join(ws.root, ws.file), 'utf8');
      writeFileSync(path.join(ws.root, ws.file), text.replace('fc.integer()', 'fc.integr()'));
      const wrong = await diagnostics.check([ws.file], new AbortController().signal);
      const codes = wrong.diagnostics.filter((d) => d.file === ws.file && d.category === 'error').map((d) => d.code);
      assert.ok(codes.includes('TS2551') && !codes.includes('TS2307'), codes.join(', '));
    } finally {
      diagnostics.dispose?.();
      ws.dispose();
    }
  });
});
