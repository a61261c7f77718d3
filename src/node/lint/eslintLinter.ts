import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CancelledError } from '../../core/errors';
import type { LintPort } from '../../core/ports/checks';
import type { LintProblem } from '../../core/schema/checks';
import { answerLine, JsonLineWorker } from '../sandbox/jsonLineWorker';
import { ProcessJail } from '../sandbox/processJail';
import { absolutePath, workspacePath } from '../workspacePaths';
import { parsePackageJson } from '../../core/schema/packageJson';
import { LintAnswer, type LintMessage, type LintRequest } from './lintProtocol';

export interface EslintLinterOptions {
  /** The lint worker as the build ships it: `dist/eslintWorker.js`. */
  workerScript: string;
  /** Resolve `eslint` from here when the workspace has none installed (a folder with node_modules). */
  fallbackDir?: string;
  /** Where the worker runs: the run's jail (src/node/wire.ts builds it); by default one with no OS sandbox. */
  jail?: ProcessJail;
  /** The node that runs the worker; 'node' on PATH by default (the extension host's execPath is Electron). */
  nodePath?: string;
  /** Longest wait for one lint; the worker is then killed and the check reports an error. */
  timeoutMs?: number;
}

type LintResult = Awaited<ReturnType<LintPort['lint']>>;

const DEFAULT_TIMEOUT_MS = 120_000;

const FLAT_CONFIGS = [
  'eslint.config.js',
  'eslint.config.mjs',
  'eslint.config.cjs',
  'eslint.config.ts',
  'eslint.config.mts',
  'eslint.config.cts',
];
const LEGACY_CONFIGS = ['.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json', '.eslintrc'];

/**
 * LintPort over the workspace's own ESLint, resolved from the workspace's node_modules (as
 * vscode-eslint does), so the workspace's version, config and plugins decide. A config and its
 * plugins are code the workspace (and the Coder, when the config is in scope) controls: they run
 * in a worker process started through the run's jail, with the allowlisted environment, in the
 * OS sandbox when it is on, and frozen between calls so that nothing they leave running acts
 * beside the rest of the run. The worker lives for the run (ESLint and its plugins load once),
 * is replaced when a file it loaded changes, and is killed with everything it started on abort,
 * on timeout and at dispose.
 */
export class EslintLinter implements LintPort {
  private readonly jail: ProcessJail;
  private readonly worker: JsonLineWorker<LintAnswer>;

  constructor(
    private readonly root: string,
    private readonly options: EslintLinterOptions,
  ) {
    this.jail = options.jail ?? ProcessJail.plain(root);
    this.worker = new JsonLineWorker({
      jail: this.jail,
      nodePath: options.nodePath ?? 'node',
      script: options.workerScript,
      cwd: root,
      parse: parseAnswer,
      name: 'the lint process',
    });
  }

  async lint(files: string[], signal: AbortSignal): Promise<LintResult> {
    if (signal.aborted) throw new CancelledError('lint cancelled');
    const config = this.findConfig();
    if (!config) return skipped('no ESLint config in the workspace (eslint.config.* or .eslintrc*)');
    const eslintPath = this.resolveEslint();
    if (!eslintPath) return skipped(`the workspace has an ESLint config (${config.file}) but no eslint installed in its node_modules`);
    const paths = files.map((f) => absolutePath(this.root, f)).filter((f) => existsSync(f));
    if (paths.length === 0) return { status: 'passed', problems: [] };
    const request = { eslintPath, flat: config.flat, cwd: this.root, files: paths };
    let answer = await this.ask(request, signal);
    // A file the worker loaded (the config, a local rule) changed: a fresh worker loads it anew.
    if ('restart' in answer) {
      await this.worker.stop();
      answer = await this.ask(request, signal);
    }
    if ('restart' in answer)
      return { status: 'error', problems: [], detail: `ESLint could not run: ${answer.restart} keeps changing while it loads` };
    // A broken config or plugin judged nothing: not the code's failure, and never a pass.
    if ('error' in answer)
      return { status: 'error', problems: [], detail: `ESLint could not run: ${this.jail.redactor.text(answer.error)}` };
    const problems = answer.results.flatMap((r) =>
      r.messages
        .filter((m) => !isIgnoredNotice(m))
        .map((m): LintProblem => ({
          file: workspacePath(this.root, r.filePath),
          line: m.line ?? 1,
          column: m.column ?? 1,
          rule: m.ruleId,
          severity: m.severity >= 2 ? 'error' : 'warning',
          message: m.message,
        })),
    );
    return { status: problems.some((p) => p.severity === 'error') ? 'failed' : 'passed', problems };
  }

  /** Kills the worker and what it started. */
  dispose(): void {
    void this.worker.stop();
  }

  /** One request to the worker, started or thawed for it and frozen again after it. */
  private async ask(request: Omit<LintRequest, 'id'>, signal: AbortSignal): Promise<LintAnswer | { id: number; error: string }> {
    const outcome = await this.worker.ask(request, signal, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if ('answer' in outcome) return outcome.answer;
    if (outcome.stopped === 'aborted') throw new CancelledError('lint cancelled');
    return { id: 0, error: outcome.detail };
  }

  private findConfig(): { file: string; flat: boolean } | undefined {
    const flat = FLAT_CONFIGS.find((f) => existsSync(join(this.root, f)));
    if (flat) return { file: flat, flat: true };
    const legacy = LEGACY_CONFIGS.find((f) => existsSync(join(this.root, f)));
    if (legacy) return { file: legacy, flat: false };
    return hasPackageJsonConfig(this.root) ? { file: 'package.json#eslintConfig', flat: false } : undefined;
  }

  private resolveEslint(): string | undefined {
    for (const dir of [this.root, this.options.fallbackDir]) {
      if (!dir) continue;
      try {
        return createRequire(join(dir, 'package.json')).resolve('eslint');
      } catch {
        // Not installed there: try the next place.
      }
    }
    return undefined;
  }
}

/**
 * The worker's line as an answer. A line that is not JSON or has no id is left alone (a
 * config or plugin may print to stdout); one with an id that is no lint answer is answered
 * with an error naming ESLint's worker, so the check reports it instead of believing it.
 */
export const parseAnswer: (line: string) => LintAnswer | undefined = answerLine(
  LintAnswer,
  "ESLint's worker answered something that is not a lint answer",
);

function skipped(detail: string): LintResult {
  return { status: 'skipped', problems: [], detail };
}

/** Legacy ESLint warns about a file its ignore patterns exclude: that is no problem of the file. */
function isIgnoredNotice(m: LintMessage): boolean {
  return m.ruleId === null && m.severity === 1 && m.message.startsWith('File ignored');
}

function hasPackageJsonConfig(root: string): boolean {
  try {
    return parsePackageJson(readFileSync(join(root, 'package.json'), 'utf8')).eslintConfig !== undefined;
  } catch {
    return false;
  }
}
