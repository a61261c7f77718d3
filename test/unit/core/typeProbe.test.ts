import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { route } from '../../../src/core/stages/router/router';
import { impossibleExpectations, renderTypeProbe } from '../../../src/core/stages/checks/typeProbe';
import { TestFile } from '../../../src/core/schema/testPlan';
import { createLanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { aManifest } from '../../support/aManifest';
import { copyFixture } from '../../support/tempWorkspace';

const file = TestFile.parse({
  path: 'test/ticket/PROBE.test.ts',
  suite: 'probe',
  imports: [{ from: '../../src/handlers/tags', names: ['listTags'] }],
  cases: [
    {
      name: 'count as text',
      arrange: ['const res = listTags();'],
      expect: [{ kind: 'equal', actual: 'res.body[0]?.count', expected: "'84'" }],
    },
    {
      name: 'count as number',
      expect: [
        { kind: 'equal', actual: 'listTags().body[0]?.count', expected: '84' },
        { kind: 'truthy', actual: 'true' },
      ],
    },
    { name: 'whole body', expect: [{ kind: 'equal', mode: 'deep', actual: 'listTags().body', expected: "[{ tag: 'node', count: 83 }]" }] },
  ],
});

describe('type probe: a test that expects a value its declared type cannot hold', function () {
  this.timeout(30_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());

  it('finds exactly the impossible expectation, in memory, writing nothing', async () => {
    const probe = renderTypeProbe(file)!;
    assert.equal(probe.sites.length, 3);
    const ls = createLanguageServiceDiagnostics(ws.root);
    try {
      const found = impossibleExpectations(probe, await ls.probe(probe.path, probe.content, new AbortController().signal));
      assert.deepEqual(
        found.map((x) => [x.caseName, x.expected, x.code]),
        [['count as text', "'84'", 'TS2345']],
      );
      assert.match(found[0]!.message, /'string' is not assignable to parameter of type 'number'/);
      assert.equal(existsSync(path.join(ws.root, probe.path)), false);
      // The probe leaves the program as it was: the file is not a root any more.
      const after = await ls.check(['src/handlers/tags.ts'], new AbortController().signal);
      assert.ok(!after.checkedFiles.includes(probe.path));
    } finally {
      ls.dispose();
    }
  });

  it('confirms "test is wrong" in the router, and nothing else does', () => {
    const manifest = aManifest({ scope: { write: [{ path: 'src/handlers/tags.ts', exists: true }] }, testPlan: { files: [file] } });
    const diagnosis = { kind: 'test' as const, claim: 'c', evidence: [{ source: 'testFile' as const, quote: 'q' }], brief: 'b', avoid: [] };
    const impossible = [
      { file: file.path, caseName: 'count as text', actual: 'res.body[0]?.count', expected: "'84'", code: 'TS2345', message: 'm' },
    ];
    const d = route({ manifest, diagnosis, diagnostics: [], workspaceRoot: '/ws', impossibleExpectations: impossible });
    assert.deepEqual([d.route, d.guard.verdict, d.guard.fact?.kind], ['test', 'confirmed', 'testExpectsImpossibleValue']);
    assert.equal(route({ manifest, diagnosis, diagnostics: [], workspaceRoot: '/ws' }).route, 'code');
  });
});
