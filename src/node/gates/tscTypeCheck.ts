import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CancelledError } from '../../core/errors';
import type { TypeCheckPort, TypeCheckResult } from '../../core/ports/gates';
import type { CodeDiagnostic } from '../../core/schema/checks';
import type { TypeCheckTool } from '../../core/schema/gates';
import { runInProcessGroup } from '../tests/processGroup';
import { ToolResolver } from '../tests/toolResolution';
import { workspacePath } from '../workspacePaths';

export interface TscTypeCheckOptions {
  root: string;
  /** Where Ticket Runner's own typescript is installed: the fallback, said so in the result. */
  fallbackDir?: string;
  /** The tsconfig to check, relative to the root. */
  tsconfig?: string;
  /** The node that runs tsc; not process.execPath in the editor (Electron). */
  nodePath?: string;
  timeoutMs?: number;
}

/** `file(line,col): error TS1234: message`, as tsc writes it with --pretty false (5.x and 7.x alike). */
const LINE = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
/** A diagnostic with no file (a bad option, a missing input). */
const GLOBAL = /^(error|warning|message) (TS\d+): (.*)$/;

/** Parses tsc's plain output; indented lines continue the message above them. */
export function parseTscOutput(output: string, root: string, configFile: string): CodeDiagnostic[] {
  const out: CodeDiagnostic[] = [];
  for (const line of output.split(/\r?\n/)) {
    const m = LINE.exec(line);
    const g = m ? null : GLOBAL.exec(line);
    if (m) {
      out.push({ file: workspacePath(root, m[1]!), line: Number(m[2]), column: Number(m[3]), code: m[5]!, category: m[4] === 'error' ? 'error' : m[4] === 'warning' ? 'warning' : 'suggestion', message: m[6]! });
    } else if (g) {
      out.push({ file: workspacePath(root, configFile), line: 1, column: 1, code: g[2]!, category: g[1] === 'error' ? 'error' : 'warning', message: g[3]! });
    } else if (/^\s+\S/.test(line) && out.length) {
      out[out.length - 1]!.message += `\n${line.trim()}`;
    }
  }
  return out;
}

/** typescript's tsc entry and version, found the way Node would from `dir`. */
function findTsc(dir: string | undefined): { bin: string; version: string } | undefined {
  if (!dir) return undefined;
  const manifest = new ToolResolver(dir).module('typescript/package.json');
  if (!manifest) return undefined;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string; bin?: Record<string, string> };
  const bin = pkg.bin?.['tsc'];
  return bin ? { bin: join(dirname(manifest), bin), version: pkg.version ?? 'unknown' } : undefined;
}

/**
 * TypeCheckPort over `tsc --noEmit`: the workspace's own TypeScript from its node_modules,
 * whatever its version (5.x in JavaScript, 7.x native behind the same bin), or Ticket Runner's
 * bundled one when the workspace has none, which the result says. Runs as a child process
 * group with a time limit, killed as a group on timeout or cancel.
 */
export class TscTypeCheck implements TypeCheckPort {
  constructor(private readonly options: TscTypeCheckOptions) {}

  /** Which tsc a check would run, or undefined when there is none at all. */
  tool(): (TypeCheckTool & { bin: string }) | undefined {
    const own = findTsc(this.options.root);
    if (own) return { name: 'tsc', version: own.version, source: 'workspace', bin: own.bin };
    const bundled = findTsc(this.options.fallbackDir);
    return bundled && { name: 'tsc', version: bundled.version, source: 'bundled', bin: bundled.bin };
  }

  async check(signal: AbortSignal): Promise<TypeCheckResult> {
    const { root } = this.options;
    const tsconfig = this.options.tsconfig ?? 'tsconfig.json';
    const configFile = join(root, tsconfig);
    if (!existsSync(configFile)) return { status: 'skipped', diagnostics: [], tool: null, detail: `no ${tsconfig}: nothing project-wide to check`, durationMs: 0 };
    const found = this.tool();
    if (!found) return { status: 'error', diagnostics: [], tool: null, detail: 'no TypeScript in the workspace nor beside Ticket Runner', durationMs: 0 };
    const { bin, ...tool } = found;
    const label = `tsc ${tool.version} (${tool.source === 'workspace' ? "the workspace's own" : 'bundled: the workspace has no typescript'})`;
    const timeoutMs = this.options.timeoutMs ?? 300_000;
    const run = await runInProcessGroup(this.options.nodePath ?? 'node', [bin, '--noEmit', '-p', configFile, '--pretty', 'false'], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1' },
      timeoutMs,
      signal,
      tailChars: 200_000,
    });
    const base = { tool, durationMs: run.durationMs };
    if (run.stopped === 'abort') throw new CancelledError('type-check cancelled');
    if (run.stopped === 'timeout') return { ...base, status: 'error', diagnostics: [], detail: `${label} killed after ${timeoutMs} ms, with its process group` };
    if (run.spawnError) return { ...base, status: 'error', diagnostics: [], detail: `${label} could not start: ${run.spawnError.message}` };
    const diagnostics = parseTscOutput(run.output, root, configFile);
    const errors = diagnostics.filter((d) => d.category === 'error');
    if (errors.length) return { ...base, status: 'failed', diagnostics, detail: label };
    if (run.exitCode !== 0) return { ...base, status: 'error', diagnostics, detail: `${label} exited with ${String(run.exitCode)} and no diagnostic: ${run.output.trim().slice(-300)}` };
    return { ...base, status: 'passed', diagnostics, detail: label };
  }
}
