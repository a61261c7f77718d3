import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessJail } from '../../../src/node/sandbox/processJail';
import { KeptTransforms } from '../../../src/node/testRunners/keptTransforms';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { copyFixture } from '../../support/tempWorkspace';
import { neverAborted, repoRoot, suiteReporter } from '../../support/tempProject';

/**
 * tsx's cache kept between runs (keptTransforms.ts), in the OS sandbox, through the runner as
 * the pipeline wires it: each run has a jail of its own, and the kept store is the workspace's.
 * The attacker here is whatever could write the store between runs (code run without the
 * sandbox, as the user): an entry rewritten so that the test it compiles passes whatever the
 * code does, or an index rewritten to name it.
 */
const addTest = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add } from '../src/add';
test('adds two numbers', () => {
  assert.equal(add(2, 2), 4);
});
`;
const GOOD = 'export const add = (a: number, b: number): number => a + b;\n';
const BROKEN = 'export const add = (a: number, b: number): number => a - b;\n';
/** What the attacker puts in place of the test's compiled code: the same case, without its assertion. */
const HOLLOW = "require('node:test').test('adds two numbers', () => {});";

describe('tsx cache kept between runs (the OS sandbox, real tsx)', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  let kept: string;
  const reporter = suiteReporter();

  beforeEach(() => {
    ws = copyFixture();
    kept = mkdtempSync(path.join(tmpdir(), 'tr-kept-transforms-'));
    writeFileSync(path.join(ws.root, 'src', 'add.ts'), GOOD);
    writeFileSync(path.join(ws.root, 'test', 'add.test.ts'), addTest);
  });
  afterEach(() => {
    ws.dispose();
    rmSync(kept, { recursive: true, force: true });
  });

  /** One run of add.test.ts in a jail of its own: its result, and how many warm-ups it started. */
  async function oneRun(): Promise<{ status: string; output: string; warmUps: number }> {
    const jail = await ProcessJail.open({ root: ws.root, protect: [], parentEnv: process.env, requireSandbox: true });
    let warmUps = 0;
    const run = jail.run.bind(jail);
    jail.run = (command, args, o) => {
      if (args.some((a) => a.endsWith('tsxWarm.cjs'))) warmUps++;
      return run(command, args, o);
    };
    const runner = new ProcessTestRunner({
      root: ws.root,
      nodeTestReporter: reporter(),
      fallbackDir: repoRoot,
      nodePath: process.execPath,
      jail,
      keptTransforms: new KeptTransforms({ dir: kept }),
    });
    try {
      const r = await runner.run({ framework: 'node:test', files: ['test/add.test.ts'], timeoutMs: 30_000 }, neverAborted());
      return { status: r.status, output: r.output, warmUps };
    } finally {
      runner.dispose();
      // The cache is kept behind the warm-up; the jail's end waits for it.
      await jail.dispose();
    }
  }

  /** The kept entry of the test file's compiled code. */
  function keptEntryOf(needle: string): string {
    const dir = path.join(kept, 'entries');
    const found = readdirSync(dir).filter((f) => readFileSync(path.join(dir, f), 'utf8').includes(needle));
    assert.equal(found.length, 1, `one kept entry holds ${needle}`);
    return path.join(dir, found[0]!);
  }

  it('a second run on the same code finds it compiled by the first, and starts no warm-up', async () => {
    const first = await oneRun();
    assert.equal(first.status, 'passed', first.output);
    assert.equal(first.warmUps, 1);
    const second = await oneRun();
    assert.equal(second.status, 'passed', second.output);
    assert.equal(second.warmUps, 0, 'everything it loads was kept');
    // A changed file is compiled again, and only it would be; the broken code fails.
    writeFileSync(path.join(ws.root, 'src', 'add.ts'), BROKEN);
    const third = await oneRun();
    assert.equal(third.status, 'failed', third.output);
    assert.equal(third.warmUps, 1);
  });

  it('a kept entry rewritten between runs is refused: the test judges the code as it is', async () => {
    assert.equal((await oneRun()).status, 'passed');
    const entry = keptEntryOf('add.test.ts');
    const was = JSON.parse(readFileSync(entry, 'utf8')) as Record<string, unknown>;
    writeFileSync(entry, JSON.stringify({ ...was, code: HOLLOW }));
    writeFileSync(path.join(ws.root, 'src', 'add.ts'), BROKEN);
    const after = await oneRun();
    assert.equal(after.status, 'failed', `a broken add passed on a rewritten kept entry: ${after.output}`);
    assert.equal(after.warmUps, 1, 'nothing was restored: the run compiled its own');
  });

  it('an index rewritten to name a planted entry is refused too', async () => {
    assert.equal((await oneRun()).status, 'passed');
    // The attacker keeps a hollow entry under its own digest and names it in the index, without the store's key.
    const entry = keptEntryOf('add.test.ts');
    const hollow = JSON.stringify({ ...(JSON.parse(readFileSync(entry, 'utf8')) as object), code: HOLLOW });
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256').update(hollow).digest('hex');
    writeFileSync(path.join(kept, 'entries', digest), hollow);
    const indexFile = path.join(kept, 'index.json');
    const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { entries: Record<string, string> };
    const name = Object.keys(index.entries).find((k) => index.entries[k] === path.basename(entry))!;
    index.entries[name] = digest;
    writeFileSync(indexFile, JSON.stringify(index));
    writeFileSync(path.join(ws.root, 'src', 'add.ts'), BROKEN);
    const after = await oneRun();
    assert.equal(after.status, 'failed', `a broken add passed on a planted kept entry: ${after.output}`);
    assert.equal(after.warmUps, 1);
  });
});
