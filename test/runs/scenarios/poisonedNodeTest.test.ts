import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { BUGGY_POSTS_HANDLER, COMPILES_OUT_THE_ASSERTIONS, writeHostileTicket } from '../../support/hostile';
import { ownInstall } from '../../support/ownInstall';
import { runTicket } from '../../support/scenario';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * node:test judges blog-api through tsx's CommonJS hook (`--require tsx/cjs`), preloaded into
 * each test file's process after the frozen test APIs: what is appended to it, or to what it
 * requires, runs there before the rendered test loads (COMPILES_OUT_THE_ASSERTIONS).
 */

/** Attempt 1, as the rendered test imports it, writes `file` (appending `text`, or in its place), then is BLOG-1's wrong handler. */
const writes = (file: string, text: string, how: 'append' | 'plant') => `import { appendFileSync, writeFileSync } from 'node:fs';
try { ${how === 'append' ? 'appendFileSync' : 'writeFileSync'}(${JSON.stringify(file)}, ${JSON.stringify(text)}); } catch {}
${BUGGY_POSTS_HANDLER}`;

const blamesTheGuard = {
  kind: 'code',
  claim: 'The guard reads the clamped value.',
  evidence: [{ source: 'testOutput', quote: 'rejects perPage above 100' }],
  brief: 'Check the raw perPage.',
};

describe('scenarios: a node:test runner the code under test patched judges no later attempt (blog-api)', function () {
  this.timeout(240_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture('blog-api');
    // tsx and esbuild real copies of the workspace's own: a link would be written through.
    ownInstall(ws.root, ['tsx']);
  });
  afterEach(() => ws.dispose());

  /** Runs POISON-3 (attempt 1 `first`, attempt 2 the wrong handler) and checks what every such run must show. */
  const neverPasses = async (first: string, o: { sandbox: boolean }) => {
    writeHostileTicket(ws.root, {
      id: 'POISON-3',
      from: 'BLOG-1',
      coder: [{ 'src/handlers/posts.ts': first }, { 'src/handlers/posts.ts': BUGGY_POSTS_HANDLER }],
      debugger: [blamesTheGuard, blamesTheGuard],
    });
    const wire = o.sandbox
      ? {}
      : { wire: { withoutSandbox: 'tsx is read-only in the sandbox: without it, the record of the judging tools alone' } };
    const { state } = await runTicket(ws.root, 'POISON-3', { attempts: 2, gates: { enabled: [] }, ...wire });
    if (o.sandbox) assert.equal(state.sandbox?.on, true, `this test needs the OS sandbox (bubblewrap): ${state.sandbox?.detail}`);
    assert.notEqual(state.status, 'passed', JSON.stringify(state.finished));
    const [a1, a2] = state.attempts;
    if (o.sandbox) {
      // The plant lands in the copy of the workspace the tests run in, beside links tsx does not resolve through: found, and gone before the next command.
      assert.equal(a1?.tests?.status, 'failed', a1?.tests?.output);
      assert.match(
        a1?.tests?.output ?? '',
        /the test run changed the installed packages \(node_modules\), which no test may write, so this run cannot pass/,
      );
    } else {
      assert.equal(a1?.tests?.status, 'error', a1?.tests?.output);
      assert.match(
        a1?.tests?.output ?? '',
        /the test runner was changed by the code under test; put back as installed, but this result was the changed runner's and does not count/,
      );
    }
    assert.equal(a2?.tests?.status, 'failed', a2?.tests?.output);
    assert.ok(
      a2?.tests?.cases.some((c) => c.status === 'failed' && /rejects perPage above 100/.test(c.name)),
      'the wrong handler fails its own case',
    );
    return a1?.tests;
  };

  it("with the sandbox off: attempt 1 appends to tsx's CommonJS hook, its result is void, the hook is put back, and the wrong attempt 2 fails on tsx as installed", async () => {
    // With the sandbox on, tsx is a read-only mount and the append is refused (hostileCoder.test.ts).
    const hook = path.join(ws.root, 'node_modules/tsx/dist/cjs/index.cjs');
    const installed = readFileSync(hook, 'utf8');
    const tests = await neverPasses(writes('node_modules/tsx/dist/cjs/index.cjs', COMPILES_OUT_THE_ASSERTIONS, 'append'), {
      sandbox: false,
    });
    assert.deepEqual(tests?.judgingTools, [{ path: 'node_modules/tsx/dist/cjs/index.cjs', change: 'modified', restored: true }]);
    assert.equal(readFileSync(hook, 'utf8'), installed, 'the hook is as installed');
  });

  it("with the sandbox on: attempt 1 plants node_modules/esbuild.js, which tsx would require before esbuild; it lands in the tests' copy, never the workspace, attempt 1 cannot pass, and the wrong attempt 2 fails", async () => {
    // The workspace is read-only to the tests; the copy's node_modules is theirs to write (the runners write their caches there).
    const shadow = `${COMPILES_OUT_THE_ASSERTIONS}\nmodule.exports = require('./esbuild/lib/main.js');\n`;
    const tests = await neverPasses(writes('node_modules/esbuild.js', shadow, 'plant'), { sandbox: true });
    assert.deepEqual(
      tests?.sideEffects?.filter((e) => e.path.startsWith('node_modules/')),
      [{ path: 'node_modules/esbuild.js', change: 'created', restored: false }],
    );
    assert.equal(existsSync(path.join(ws.root, 'node_modules/esbuild.js')), false);
  });
});
