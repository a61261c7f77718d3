import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';

/** The repository: its node_modules stand in for the extension's own folder. */
export const repoRoot = resolve(__dirname, '../..');

/** A small project in the system temp folder, written from a map of relative path to content. */
export class TempProject {
  readonly root: string;

  constructor(files: Record<string, string>) {
    this.root = mkdtempSync(join(tmpdir(), 'ticket-runner-checks-'));
    for (const [path, content] of Object.entries(files)) this.write(path, content);
  }

  path(relative: string): string {
    return join(this.root, relative);
  }

  write(relative: string, content: string): void {
    mkdirSync(dirname(this.path(relative)), { recursive: true });
    writeFileSync(this.path(relative), content);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export function neverAborted(): AbortSignal {
  return new AbortController().signal;
}

/** Gone, or a zombie nobody has reaped yet: either way it runs no more. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !existsSync(stat) || !/\) Z /.test(readFileSync(stat, 'utf8'));
}

export async function eventually(condition: () => boolean, ms = 3000): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(50)) if (condition()) return true;
  return condition();
}

/**
 * The node:test reporter as the build ships it (bundled on its own to an ES module), written to
 * `file`, with the preload that freezes the test APIs beside it, as in dist/.
 */
export async function buildReporter(file: string): Promise<string> {
  await build({
    entryPoints: [`${repoRoot}/src/node/testRunners/nodeTestReporter.ts`],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  await build({
    entryPoints: [`${repoRoot}/src/node/testRunners/testApisFrozen.ts`],
    outfile: join(dirname(file), 'testApisFrozen.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    logLevel: 'error',
  });
  await build({
    entryPoints: [`${repoRoot}/src/node/testRunners/expectFrozen.mts`],
    outfile: join(dirname(file), 'expectFrozen.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  await build({
    entryPoints: [`${repoRoot}/src/node/testRunners/tsxWarm.ts`],
    outfile: join(dirname(file), 'tsxWarm.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    logLevel: 'error',
  });
  return file;
}

/**
 * The reporter and its preloads built once for the enclosing describe block, into a temporary
 * folder its hooks make and remove: call it in the block; the returned function gives the path.
 */
export function suiteReporter(): () => string {
  let file: string | undefined;
  before(async () => {
    file = await buildReporter(join(mkdtempSync(join(tmpdir(), 'tr-reporter-')), 'nodeTestReporter.mjs'));
  });
  after(() => {
    if (file) rmSync(dirname(file), { recursive: true, force: true });
  });
  return () => {
    if (!file) throw new Error('the reporter is built in a before() hook: call suiteReporter() inside describe');
    return file;
  };
}

/** The lint worker as the build ships it (bundled on its own to CommonJS), written to `file`. */
export async function buildLintWorker(file: string): Promise<string> {
  await build({
    entryPoints: [`${repoRoot}/src/node/lint/eslintWorker.ts`],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    logLevel: 'error',
  });
  return file;
}

/** The type-check worker as the build ships it (bundled on its own to CommonJS), written to `file`. */
export async function buildTscWorker(file: string): Promise<string> {
  await build({
    entryPoints: [`${repoRoot}/src/node/gates/tscServer.ts`],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    logLevel: 'error',
  });
  return file;
}
