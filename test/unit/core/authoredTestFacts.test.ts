import assert from 'node:assert/strict';
import type { CodeDiagnostic } from '../../../src/core/schema/checks';
import { awaitsTheChange } from '../../../src/core/stages/checks/awaitedImports';
import { route } from '../../../src/core/stages/router/router';
import { authoredTestWhy } from '../../../src/core/stages/router/corrections';
import { aManifest } from '../../support/aManifest';
import { aTestRun } from '../../support/aTestRun';

/**
 * The wrong-test guard on a test the author wrote. The diagnostics are TypeScript's own, from a
 * test written first in blog-api, checked on the project as it was before the Coder wrote:
 * missing the module the ticket adds, an export of a file in scope and one of a file out of it,
 * and a value its subject's declared type cannot hold.
 */

const AUTHORED = 'test/pathSegments.test.ts';
const at = (line: number, code: string, message: string): CodeDiagnostic => ({
  file: AUTHORED,
  line,
  column: 1,
  code,
  category: 'error',
  message,
});
const MISSING_MODULE = at(3, 'TS2307', "Cannot find module '../src/utils/pathSegments' or its corresponding type declarations.");
const MISSING_EXPORT_IN_SCOPE = at(4, 'TS2305', `Module '"../src/handlers/posts"' has no exported member 'slugify'.`);
const MISSING_EXPORT_OUT_OF_SCOPE = at(5, 'TS2305', `Module '"../src/utils/pagination"' has no exported member 'paginate'.`);
const WRONG_TYPE = at(8, 'TS2322', "Type 'number' is not assignable to type 'string'.");

const manifest = aManifest({
  scope: {
    write: [
      { path: 'src/utils/pathSegments.ts', exists: false },
      { path: 'src/handlers/posts.ts', exists: true },
    ],
    read: [{ path: 'src/utils/pagination.ts', exists: true }],
  },
  acceptance: [
    { id: 'AC1', text: "a bare path such as '/posts/42/' gives its non-empty segments" },
    { id: 'AC2', text: 'an absolute URL gives the segments of its path alone' },
  ],
  testPlan: { files: [], authored: [AUTHORED] },
  testFiles: [AUTHORED],
});

const claimsTheTestWrong = {
  kind: 'test' as const,
  claim: 'The test expects a string status.',
  evidence: [{ source: 'testFile' as const, file: AUTHORED, quote: 'const n: string' }],
  brief: '',
  avoid: [],
};

describe('the wrong-test guard on a test the author wrote', () => {
  it('a missing module or export that the ticket is to add is the work left to do, never a wrong test', () => {
    assert.equal(awaitsTheChange(MISSING_MODULE, manifest), true);
    assert.equal(awaitsTheChange(MISSING_EXPORT_IN_SCOPE, manifest), true);
    assert.equal(awaitsTheChange(MISSING_EXPORT_OUT_OF_SCOPE, manifest), false, 'no change in scope can add it');
    assert.equal(awaitsTheChange(WRONG_TYPE, manifest), false);
    // The same import from a rendered test one folder deeper.
    assert.equal(
      awaitsTheChange(
        { ...MISSING_MODULE, file: 'test/ticket/T-1.test.ts', message: MISSING_MODULE.message.replace('../', '../../') },
        manifest,
      ),
      true,
    );
  });

  it('routes the claim to the operator on a type error of the file that was there before the Coder and still is; a Coder that never wrote the module does not', () => {
    const base = { manifest, workspaceRoot: '/ws', diagnosis: claimsTheTestWrong };
    const before = [WRONG_TYPE, MISSING_EXPORT_OUT_OF_SCOPE].filter((d) => !awaitsTheChange(d, manifest));
    const wrong = route({ ...base, diagnostics: [WRONG_TYPE], testErrorsBeforeCoder: before });
    assert.deepEqual(
      [wrong.route, wrong.guard.verdict, wrong.guard.fact?.kind, wrong.guard.fact?.file],
      ['test', 'confirmed', 'testTypeError', AUTHORED],
    );
    // The Coder left the module unwritten: the same errors before and after, and still the code's to fix.
    const notWritten = [MISSING_MODULE, MISSING_EXPORT_IN_SCOPE];
    const unwritten = route({
      ...base,
      diagnostics: notWritten,
      testErrorsBeforeCoder: notWritten.filter((d) => !awaitsTheChange(d, manifest)),
    });
    assert.deepEqual([unwritten.route, unwritten.guard.verdict], ['code', 'overridden']);
  });

  it("the correction names the file, the failing case and its criterion, and leaves the fix to the author's hand", () => {
    const fact = {
      kind: 'testTypeError' as const,
      detail: `${AUTHORED}:8 TS2322: ${WRONG_TYPE.message}`,
      file: AUTHORED,
      line: 8,
      code: 'TS2322',
    };
    const tests = aTestRun([{ name: 'pathSegments > splits a bare path [AC1]', file: AUTHORED, status: 'failed', durationMs: 1 }]);
    const why = authoredTestWhy(manifest, fact, tests);
    assert.match(
      why,
      /^test\/pathSegments\.test\.ts is a test you wrote, and its case "pathSegments > splits a bare path \[AC1\]", which checks AC1 \("a bare path/,
    );
    assert.match(why, /TS2322: Type 'number' is not assignable to type 'string'/);
    assert.match(why, /correct the test file by hand/);
    assert.match(authoredTestWhy(manifest, fact, undefined), /its cases, which names no acceptance criterion/);
  });
});
