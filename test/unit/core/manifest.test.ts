import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../src/core/errors';
import { buildManifest, detectRunner, serializeManifest } from '../../../src/core/stages/manifest/manifestBuilder';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { createLanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { copyFixture } from '../../support/tempWorkspace';

describe('manifest builder', function () {
  this.timeout(30_000);
  let ws: ReturnType<typeof copyFixture>;
  before(() => {
    ws = copyFixture();
  });
  after(() => ws.dispose());

  const load = (id: string) => parseTicket(id, readFileSync(path.join(ws.root, '.tickets', `${id}.ticket.json`), 'utf8'));

  it('gives byte-identical manifests for the same ticket, across language service instances', async () => {
    const bytes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const diagnostics = createLanguageServiceDiagnostics(ws.root);
      try {
        const m = await buildManifest({
          ticket: load('BLOG-3'),
          ticketPath: '.tickets/BLOG-3.ticket.json',
          workspace: new FsWorkspace(ws.root),
          diagnostics,
        });
        bytes.push(serializeManifest(m));
      } finally {
        diagnostics.dispose();
      }
    }
    assert.equal(bytes[0], bytes[1]);
    const m = JSON.parse(bytes[0]!) as { facts: { symbol: string; signature: string | null }[]; runner: { framework: string } };
    assert.deepEqual(m.facts, [{ file: 'src/types.ts', symbol: 'Post.publishedAt', signature: null }]);
    assert.equal(m.runner.framework, 'node:test');
  });

  it('checks every path: read paths must exist, tests are never writable, nothing escapes', async () => {
    const workspace = new FsWorkspace(ws.root);
    const t = load('BLOG-1');
    await assert.rejects(
      buildManifest({ ticket: { ...t, scope: { ...t.scope, read: ['src/nope.ts'] } }, ticketPath: 'x', workspace }),
      (e: unknown) => e instanceof UserInputError && /scope\.read\[0\] "src\/nope\.ts" does not exist/.test(e.message),
    );
    await assert.rejects(
      buildManifest({ ticket: { ...t, scope: { ...t.scope, write: ['test/ticket/BLOG-1.test.ts'] } }, ticketPath: 'x', workspace }),
      /is a rendered test file; tests are read-only/,
    );
    await assert.rejects(
      buildManifest({ ticket: { ...t, scope: { ...t.scope, write: ['../../etc/passwd'] } }, ticketPath: 'x', workspace }),
      /scope\.write\[0\] path .* escapes the workspace/,
    );
    const created = await buildManifest({
      ticket: { ...t, scope: { ...t.scope, write: ['src/new/file.ts'] } },
      ticketPath: 'x',
      workspace,
    });
    assert.deepEqual(created.scope.write, [{ path: 'src/new/file.ts', exists: false }]);
  });

  it('detects the test framework from package.json', () => {
    assert.equal(detectRunner({ devDependencies: { vitest: '4' } }, undefined).framework, 'vitest');
    assert.equal(detectRunner({ devDependencies: { jest: '30' } }, undefined).framework, 'jest');
    assert.equal(detectRunner({ scripts: { test: 'mocha' } }, undefined).framework, 'mocha');
    assert.equal(
      detectRunner({ scripts: { test: 'node --import tsx --test test/*.test.ts' } }, undefined).detectedFrom,
      'package.json scripts.test (node --test)',
    );
    assert.equal(detectRunner(null, 'jest').framework, 'jest');
  });

  it("prefers the runner's config file, then the test script, over a dependency", () => {
    // A project moving from jest to vitest depends on both; what it runs decides.
    const both = { devDependencies: { jest: '29', vitest: '4' } };
    assert.deepEqual(detectRunner({ ...both, scripts: { test: 'vitest run' } }, undefined), {
      framework: 'vitest',
      detectedFrom: 'package.json scripts.test',
    });
    assert.deepEqual(detectRunner(both, undefined, ['vitest.config.ts']), {
      framework: 'vitest',
      detectedFrom: 'config file vitest.config.ts',
    });
    assert.deepEqual(detectRunner({ scripts: { test: 'npm run unit' } }, undefined, ['jest.config.cjs']), {
      framework: 'jest',
      detectedFrom: 'config file jest.config.cjs',
    });
    assert.deepEqual(detectRunner(null, undefined, ['.mocharc.yml']), { framework: 'mocha', detectedFrom: 'config file .mocharc.yml' });
    // The ticket's own choice stands over everything the workspace says.
    assert.equal(detectRunner(both, 'node:test', ['vitest.config.ts']).framework, 'node:test');
  });

  it("reads the runner's config file from the workspace into the manifest", async () => {
    writeFileSync(path.join(ws.root, 'vitest.config.mts'), 'export default {};\n');
    const m = await buildManifest({ ticket: load('BLOG-1'), ticketPath: 'x', workspace: new FsWorkspace(ws.root) });
    assert.deepEqual(m.runner, { framework: 'vitest', detectedFrom: 'config file vitest.config.mts' });
  });

  it('says so when the workspace package.json is broken', async () => {
    writeFileSync(path.join(ws.root, 'package.json'), '{ broken');
    try {
      await assert.rejects(
        buildManifest({ ticket: load('BLOG-1'), ticketPath: 'x', workspace: new FsWorkspace(ws.root) }),
        /package\.json in the workspace is not valid JSON/,
      );
    } finally {
      rmSync(path.join(ws.root, 'package.json'));
    }
  });
});
