import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CancelledError, errorMessage } from '../../core/errors';
import type { LintPort } from '../../core/ports/checks';
import type { LintProblem } from '../../core/schema/checks';
import { absolutePath, workspacePath } from '../workspacePaths';
import { raceAbort } from '../abort';

export interface EslintLinterOptions {
  /** Resolve `eslint` from here when the workspace has none installed (a folder with node_modules). */
  fallbackDir?: string;
}

type LintResult = Awaited<ReturnType<LintPort['lint']>>;

/** The slice of ESLint's Node API this adapter uses; the workspace's ESLint may be 8 or 9. */
interface ESLintInstance {
  lintFiles(patterns: string[]): Promise<{ filePath: string; messages: ESLintMessage[] }[]>;
}
interface ESLintMessage {
  ruleId: string | null;
  severity: number;
  message: string;
  line?: number;
  column?: number;
}
type ESLintClass = new (options: Record<string, unknown>) => ESLintInstance;
interface ESLintModule {
  loadESLint?: (options: { useFlatConfig: boolean }) => Promise<ESLintClass>;
  ESLint?: ESLintClass;
}

const FLAT_CONFIGS = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const LEGACY_CONFIGS = ['.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json', '.eslintrc'];

/**
 * LintPort over the workspace's own ESLint, loaded through its Node API from the workspace's
 * node_modules (as vscode-eslint does), so the workspace's version, config and plugins decide.
 * Runs in this process: there is nothing to kill on abort, so an aborted lint is abandoned.
 */
export class EslintLinter implements LintPort {
  constructor(
    private readonly root: string,
    private readonly options: EslintLinterOptions = {},
  ) {}

  async lint(files: string[], signal: AbortSignal): Promise<LintResult> {
    if (signal.aborted) throw new CancelledError('lint cancelled');
    const config = this.findConfig();
    if (!config) return skipped('no ESLint config in the workspace (eslint.config.* or .eslintrc*)');
    const eslintPath = this.resolveEslint();
    if (!eslintPath) return skipped(`the workspace has an ESLint config (${config.file}) but no eslint installed in its node_modules`);
    const paths = files.map((f) => absolutePath(this.root, f)).filter((f) => existsSync(f));
    if (paths.length === 0) return { status: 'passed', problems: [] };
    let results: Awaited<ReturnType<ESLintInstance['lintFiles']>>;
    try {
      const eslint = await this.create(eslintPath, config.flat);
      results = await raceAbort(eslint.lintFiles(paths), signal, () => new CancelledError('lint cancelled'));
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      // A broken config or plugin judged nothing: not the code's failure, and never a pass.
      return { status: 'error', problems: [], detail: `ESLint could not run: ${errorMessage(err)}` };
    }
    const problems = results.flatMap((r) =>
      r.messages.filter((m) => !isIgnoredNotice(m)).map((m): LintProblem => ({
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

  private async create(eslintPath: string, flat: boolean): Promise<ESLintInstance> {
    const mod = createRequire(join(this.root, 'package.json'))(eslintPath) as ESLintModule;
    // loadESLint (8.57+) picks the flat or the legacy class; older versions only have the legacy one.
    const ESLint = mod.loadESLint ? await mod.loadESLint({ useFlatConfig: flat }) : mod.ESLint;
    if (!ESLint) throw new Error(`${eslintPath} does not export ESLint`);
    // The legacy class rejects options it does not know, such as warnIgnored.
    return new ESLint(flat ? { cwd: this.root, errorOnUnmatchedPattern: false, warnIgnored: false } : { cwd: this.root, errorOnUnmatchedPattern: false });
  }
}

function skipped(detail: string): LintResult {
  return { status: 'skipped', problems: [], detail };
}

/** Legacy ESLint warns about a file its ignore patterns exclude: that is no problem of the file. */
function isIgnoredNotice(m: ESLintMessage): boolean {
  return m.ruleId === null && m.severity === 1 && m.message.startsWith('File ignored');
}

function hasPackageJsonConfig(root: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { eslintConfig?: unknown };
    return pkg.eslintConfig !== undefined;
  } catch {
    return false;
  }
}
