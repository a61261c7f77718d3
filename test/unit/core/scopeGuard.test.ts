import assert from 'node:assert/strict';
import type { TestRunResult } from '../../../src/core/schema/checks';
import type { Diagnosis } from '../../../src/core/schema/diagnosis';
import { route } from '../../../src/core/stages/router/router';
import { aManifest } from '../../support/aManifest';

/**
 * The "manifest is wrong" guard against a stack frame. The inputs are the shape of a real run
 * (test/runs/scenarios/frameNotScope.test.ts, attempt 1, its root written as /ws): the Coder's
 * postLink passes a raw title to assertSlug, an unchanged helper outside the scope that refuses
 * it by design, so the failing case's top workspace frame is the helper's throw.
 */

const scope = { write: [{ path: 'src/format/postLink.ts', exists: false }] };
const testPlan = {
  files: [
    {
      path: 'test/ticket/FRAME-1.test.ts',
      suite: 'FRAME-1 postLink',
      cases: [{ name: 'links a post by the slug of its title', expect: [{ kind: 'truthy' as const, actual: 'true' }] }],
    },
  ],
};
const manifest = aManifest({ ticketId: 'FRAME-1', scope, testPlan });

const stack = [
  'RangeError: not a slug: "Hello World"',
  '    at assertSlug (/ws/src/utils/slug.ts:8:53)',
  '    at postLink (/ws/src/format/postLink.ts:4:20)',
  '    at TestContext.<anonymous> (/ws/test/ticket/FRAME-1.test.ts:23:24)',
  '    at Test.runInAsyncScope (node:async_hooks:206:9)',
].join('\n');

const tests: TestRunResult = {
  status: 'failed',
  framework: 'node:test',
  command: [],
  passed: 0,
  failed: 1,
  skipped: 0,
  durationMs: 1045,
  cases: [
    {
      name: 'FRAME-1 postLink > [AC1] links a post by the slug of its title',
      file: 'test/ticket/FRAME-1.test.ts',
      status: 'failed',
      message: 'not a slug: "Hello World"',
      stack,
    },
  ],
  output: `✖ [AC1] links a post by the slug of its title\n    RangeError [Error]: not a slug: "Hello World"\n${stack.split('\n').slice(1).join('\n')}\n`,
};

const scopeClaim: Diagnosis = {
  kind: 'manifest',
  claim: 'assertSlug in src/utils/slug.ts throws on the title; the scope must include src/utils/slug.ts so it can accept titles.',
  evidence: [{ source: 'testOutput', quote: 'not a slug: "Hello World"' }],
  brief: 'Add src/utils/slug.ts to the scope and let assertSlug accept titles.',
  avoid: [],
};

const base = { manifest, diagnosis: scopeClaim, diagnostics: [], tests, workspaceRoot: '/ws' };

describe('scope guard: a stack frame is not a scope fact', () => {
  it('vetoes "manifest is wrong" resting on a failing frame in an unchanged helper outside the scope: the run goes to code', () => {
    const d = route(base);
    assert.deepEqual([d.claimed, d.route, d.guard.verdict, d.guard.fact], ['manifest', 'code', 'overridden', undefined]);
    // The Coder is told where its mistake surfaced, and that the frame alone proves no scope change.
    assert.match(d.guard.detail, /src\/utils\/slug\.ts:8/);
    assert.match(d.guard.detail, /where the failure surfaced/);
  });

  it('still confirms it when the change caused an error in that out-of-scope file: only a wider scope can fix it', () => {
    const error = {
      file: 'src/utils/slug.ts',
      line: 7,
      column: 10,
      code: 'TS2554',
      category: 'error' as const,
      message: 'Expected 1 arguments, but got 2.',
    };
    const d = route({ ...base, diagnostics: [error] });
    assert.deepEqual(
      [d.route, d.guard.verdict, d.guard.fact?.kind, d.guard.fact?.file],
      ['manifest', 'confirmed', 'outsideScopeDiagnostic', 'src/utils/slug.ts'],
    );
  });

  it("still confirms it when the language service's fix for an error in scope must change the out-of-scope file", () => {
    const refusedFixes = [
      {
        file: 'src/format/postLink.ts',
        code: 'TS2459',
        fixName: 'fixImportNonExportedMember',
        description: "Export 'titleSlug' from module '../utils/slug'",
        files: ['src/format/postLink.ts', 'src/utils/slug.ts'],
      },
    ];
    const d = route({ ...base, refusedFixes });
    assert.deepEqual(
      [d.route, d.guard.verdict, d.guard.fact?.kind, d.guard.fact?.file],
      ['manifest', 'confirmed', 'symbolNotInScope', 'src/utils/slug.ts'],
    );
  });

  it('a frame outside the scope with no other fact never reaches the operator, whoever wrote the claim', () => {
    // A frame in a file no test reaches, deeper in the stack, or in the read scope: none is a fact.
    const deeper = { ...tests, cases: [{ ...tests.cases[0]!, stack: `${stack}\n    at helper (/ws/src/lib/other.ts:3:1)` }] };
    const read = aManifest({ ticketId: 'FRAME-1', scope: { ...scope, read: [{ path: 'src/utils/slug.ts', exists: true }] }, testPlan });
    for (const i of [
      { ...base, tests: deeper },
      { ...base, manifest: read },
    ])
      assert.deepEqual([route(i).route, route(i).guard.verdict], ['code', 'overridden']);
  });
});
