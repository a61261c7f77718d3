/**
 * The OS sandbox's cost: the blog-api fixture's own test suite run by the test runner adapter
 * in the sandbox and without it (the same allowlisted environment and scrubbed output), in
 * alternation, as a ratio of medians. `tsx bench/sandboxOverhead.ts` prints it alone.
 */
import * as path from 'node:path';
import { ProcessJail } from '../src/node/sandbox/processJail';
import { ProcessTestRunner } from '../src/node/testRunners/testRunner';
import { copyFixture, REPO_ROOT } from '../test/support/tempWorkspace';
import { median, round, timed } from './measure';
import { ms, type Row } from './report';

export interface SandboxOverhead {
  sandbox: string;
  sandboxedMs: number[];
  plainMs: number[];
  /** Median sandboxed ÷ median unsandboxed. */
  ratio: number;
}

export async function measureSandboxOverhead(runs: number): Promise<SandboxOverhead> {
  const fixture = copyFixture();
  const open = (withoutSandbox?: string) =>
    ProcessJail.open({ root: fixture.root, protect: [path.join(fixture.root, '.tickets')], parentEnv: process.env, withoutSandbox });
  const [sandboxed, plain] = [await open(), await open('the baseline')];
  try {
    if (!sandboxed.status.on) throw new Error(`the sandbox cannot start here: ${sandboxed.status.detail}`);
    const runner = (jail: ProcessJail) =>
      new ProcessTestRunner({
        root: fixture.root,
        nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'),
        fallbackDir: REPO_ROOT,
        nodePath: process.execPath,
        jail,
      });
    const request = {
      framework: 'node:test' as const,
      files: ['test/pagination.test.ts', 'test/postSummary.test.ts', 'test/posts.test.ts', 'test/tags.test.ts'],
      timeoutMs: 60_000,
    };
    const once = async (jail: ProcessJail) => {
      const { ms: took, value } = await timed(() => runner(jail).run(request, new AbortController().signal));
      if (value.status !== 'passed') throw new Error(`the fixture's tests did not pass (${value.status}): ${value.output.slice(-500)}`);
      return took;
    };
    // A first run of each warms the caches (tsx's, the file system's) out of the figure.
    await once(plain);
    await once(sandboxed);
    const sandboxedMs: number[] = [];
    const plainMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      plainMs.push(await once(plain));
      sandboxedMs.push(await once(sandboxed));
    }
    return { sandbox: sandboxed.status.detail, sandboxedMs, plainMs, ratio: round(median(sandboxedMs) / median(plainMs), 2) };
  } finally {
    await sandboxed.dispose();
    await plain.dispose();
    fixture.dispose();
  }
}

export function sandboxOverheadRow(o: SandboxOverhead): Row {
  return {
    figure: `Sandbox overhead, blog-api test suite (${o.sandbox})`,
    measured: `sandboxed ${ms(median(o.sandboxedMs))} vs unsandboxed ${ms(median(o.plainMs))}, median of ${o.plainMs.length} alternating runs`,
    ratio: o.ratio,
  };
}

if (require.main === module) {
  measureSandboxOverhead(5).then(
    (o) => process.stdout.write(`${JSON.stringify(sandboxOverheadRow(o))}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
