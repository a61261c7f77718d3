import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { materialize, type RenderOptions } from '../../src/core/stages/materializer';
import { TestPlan, type TestFramework } from '../../src/core/schema/testPlan';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/materializer');

/** The folder (and golden file) name of each framework: `node:test` is not a portable file name. */
export const FRAMEWORK_DIR = { 'node:test': 'nodeTest', vitest: 'vitest', jest: 'jest', mocha: 'mocha' } as const satisfies Record<
  TestFramework,
  string
>;

export function loadPlan(file: string): TestPlan {
  return TestPlan.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}

export function fixturePlan(framework: TestFramework): TestPlan {
  return loadPlan(path.join(FIXTURES, FRAMEWORK_DIR[framework], 'plan.json'));
}

export function makeTempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ticket-runner-materializer-${label}-`));
}

/** Which implementation a copy of a fixture runs against. */
export type Variant = 'correct' | 'wrong';

/**
 * Copies a fixture project to `dir`. Each `name.wrong.ext` is the wrong version of `name.ext`:
 * it takes that file's place for the wrong variant, and is dropped for the correct one.
 */
export function copyFixture(framework: TestFramework, dir: string, variant: Variant): void {
  fs.cpSync(path.join(FIXTURES, FRAMEWORK_DIR[framework]), dir, { recursive: true });
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const wrong = path.join(dir, entry);
    const replaced = wrong.replace(/\.wrong(\.[^./\\]+)$/, '$1');
    if (replaced === wrong) continue;
    if (variant === 'wrong') fs.renameSync(wrong, replaced);
    else fs.rmSync(wrong);
  }
}

/** Renders `plan` into the project at `dir`, as the pipeline would into a workspace; returns the written paths, relative to `dir`. */
export function writeRendered(dir: string, plan: TestPlan, framework: TestFramework, options: RenderOptions): string[] {
  return materialize(plan, framework, options).map((file) => {
    const target = path.join(dir, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
    return file.path;
  });
}

/** The entry script of a package's command, found from this repository rather than from PATH. */
export function binOf(pkg: string, command: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`, { paths: [REPO_ROOT] });
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[command];
  if (bin === undefined) throw new Error(`${pkg} has no "${command}" command`);
  return path.join(path.dirname(manifestPath), bin);
}

export interface ProcessResult {
  code: number | null;
  timedOut: boolean;
  /** stdout and stderr together, in arrival order: the runners split their reports across both. */
  output: string;
  ms: number;
}

/**
 * Runs `node args` in `cwd` and never rejects. The child leads its own process group so that a
 * runner that hangs is killed together with its workers.
 */
export function runNode(args: readonly string[], cwd: string, timeoutMs: number): Promise<ProcessResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // Markers a parent runner leaves behind would make a child runner report to it instead of running.
  for (const key of ['FORCE_COLOR', 'NODE_TEST_CONTEXT', 'VITEST', 'VITEST_MODE', 'VITEST_POOL_ID', 'VITEST_WORKER_ID', 'JEST_WORKER_ID'])
    delete env[key];
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    const finish = (code: number | null, error?: Error) => {
      clearTimeout(timer);
      resolve({ code, timedOut, output: error ? `${output}\n${error.message}` : output, ms: Date.now() - started });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code));
  });
}
