/**
 * What moving ESLint out of Ticket Runner's process costs per check: the blog-api fixture with a
 * typescript-eslint config, linted after every write. In process (how it ran before: ESLint's
 * Node API in this process, no sandbox) against the linter as wired (its worker in the OS
 * sandbox, thawed for the call and frozen after it), warm calls in alternation, as a ratio of
 * medians; the worker's first call and a fresh process per call are measured apart.
 * `tsx bench/lintWorker.ts` prints it alone.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { EslintLinter } from '../src/node/lint/eslintLinter';
import { ProcessJail } from '../src/node/sandbox/processJail';
import { copyFixture, REPO_ROOT } from '../test/support/tempWorkspace';
import { median, round, timed } from './measure';
import { ms, type Row } from './report';

export interface LintWorkerCost {
  sandbox: string;
  /** Warm calls of ESLint's API in this process. */
  inProcessMs: number[];
  /** Warm calls of the worker in the sandbox. */
  workerMs: number[];
  /** The worker's first call: its start, ESLint's and the config's load. */
  firstCallMs: number;
  /** A new worker per call: what the worker's reuse saves. */
  freshProcessMs: number[];
  /** Median worker ÷ median in process. */
  ratio: number;
}

const CONFIG = `import tseslint from 'typescript-eslint';
export default tseslint.config({ files: ['**/*.ts'], extends: [tseslint.configs.recommended], rules: { 'prefer-const': 'error' } });
`;
const FILES = ['src/handlers/posts.ts', 'src/utils/pagination.ts'];

export async function measureLintWorker(runs: number): Promise<LintWorkerCost> {
  const fixture = copyFixture();
  writeFileSync(path.join(fixture.root, 'eslint.config.mjs'), CONFIG);
  const jail = await ProcessJail.open({ root: fixture.root, protect: [path.join(fixture.root, '.tickets')], parentEnv: process.env });
  const workerScript = path.join(REPO_ROOT, 'dist', 'eslintWorker.js');
  const linter = new EslintLinter(fixture.root, { workerScript, jail, nodePath: process.execPath });
  try {
    if (!jail.status.on) throw new Error(`the sandbox cannot start here: ${jail.status.detail}`);
    const signal = new AbortController().signal;
    const viaWorker = async (l: EslintLinter) => {
      const { ms: took, value } = await timed(() => l.lint(FILES, signal));
      if (value.status === 'error' || value.status === 'skipped') throw new Error(`the lint did not run: ${value.detail ?? value.status}`);
      return took;
    };
    // How the linter ran before: the workspace's ESLint through its Node API, here.
    const { loadESLint } = createRequire(path.join(fixture.root, 'package.json'))('eslint') as {
      loadESLint: (o: { useFlatConfig: boolean }) => Promise<new (o: object) => { lintFiles(f: string[]): Promise<unknown[]> }>;
    };
    const inProcess = async () =>
      (
        await timed(async () =>
          new (await loadESLint({ useFlatConfig: true }))({
            cwd: fixture.root,
            errorOnUnmatchedPattern: false,
            warnIgnored: false,
          }).lintFiles(FILES.map((f) => path.join(fixture.root, f))),
        )
      ).ms;
    const firstCallMs = await viaWorker(linter);
    await inProcess();
    const inProcessMs: number[] = [];
    const workerMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      inProcessMs.push(await inProcess());
      workerMs.push(await viaWorker(linter));
    }
    const freshProcessMs: number[] = [];
    for (let i = 0; i < Math.min(runs, 3); i++) {
      const fresh = new EslintLinter(fixture.root, { workerScript, jail, nodePath: process.execPath });
      freshProcessMs.push(await viaWorker(fresh));
      fresh.dispose();
    }
    return {
      sandbox: jail.status.detail,
      inProcessMs,
      workerMs,
      firstCallMs,
      freshProcessMs,
      ratio: round(median(workerMs) / median(inProcessMs), 2),
    };
  } finally {
    linter.dispose();
    await jail.dispose();
    fixture.dispose();
  }
}

export function lintWorkerRow(o: LintWorkerCost): Row {
  return {
    figure: `Lint per check, blog-api with typescript-eslint: worker in the sandbox (${o.sandbox}) ÷ in process`,
    measured: `worker ${ms(median(o.workerMs))} vs in process ${ms(median(o.inProcessMs))}, median of ${o.workerMs.length} alternating warm calls; the worker's first call ${ms(o.firstCallMs)}, a new process per call ${ms(median(o.freshProcessMs))}`,
    ratio: o.ratio,
  };
}

if (require.main === module) {
  measureLintWorker(7).then(
    (o) => process.stdout.write(`${JSON.stringify(lintWorkerRow(o))}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
