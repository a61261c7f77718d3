import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CancelledError } from '../../core/errors';
import type { TypeCheckPort, TypeCheckResult } from '../../core/ports/gates';
import type { CodeDiagnostic } from '../../core/schema/checks';
import type { TypeCheckTool } from '../../core/schema/gates';
import { answerLine, JsonLineWorker } from '../sandbox/jsonLineWorker';
import { ProcessJail } from '../sandbox/processJail';
import { TscAnswer } from './tscProtocol';
import { dependentsOf, packageOf, workspacePackages, type WorkspacePackage } from '../../core/stages/common/workspacePackages';
import { ToolResolver } from '../testRunners/toolResolution';
import { FsWorkspace } from '../workspace/fsWorkspace';
import { workspacePath } from '../workspacePaths';
import { workspaceStamp } from '../workspace/workspaceStamp';
import { parsePackageJson } from '../../core/schema/packageJson';

export interface TscTypeCheckOptions {
  root: string;
  /** Where Ticket Runner's own typescript is installed: the fallback, said so in the result. */
  fallbackDir?: string;
  /** The tsconfig to check, relative to the root. */
  tsconfig?: string;
  /** The node that runs tsc; not process.execPath in the editor (Electron). */
  nodePath?: string;
  timeoutMs?: number;
  /** Where tsc runs; src/node/wire.ts passes the run's sandbox. */
  jail?: ProcessJail;
  /** Where the incremental state's folder is made: the system's temporary folder unless said. */
  stateParent?: string;
  /**
   * The type-check worker as the build ships it (`dist/tscServer.js`): with it, the checks of a
   * TypeScript 5 or 6 run in one process of the run's, which keeps what it parsed between them;
   * without it, or when that worker cannot check, each check starts tsc.
   */
  serverScript?: string;
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
      out.push({
        file: workspacePath(root, m[1]!),
        line: Number(m[2]),
        column: Number(m[3]),
        code: m[5]!,
        category: m[4] === 'error' ? 'error' : m[4] === 'warning' ? 'warning' : 'suggestion',
        message: m[6]!,
      });
    } else if (g) {
      out.push({
        file: workspacePath(root, configFile),
        line: 1,
        column: 1,
        code: g[2]!,
        category: g[1] === 'error' ? 'error' : 'warning',
        message: g[3]!,
      });
    } else if (/^\s+\S/.test(line) && out.length) {
      out[out.length - 1]!.message += `\n${line.trim()}`;
    }
  }
  return out;
}

/**
 * In an npm-workspaces monorepo, the tsconfigs to check for a scope: each package that holds a
 * scope path and each package that depends on one of those (a library's change breaks its
 * importers), plus the root's when a scope path is in no package or a package has none of its
 * own; undefined elsewhere.
 */
async function packageProjects(root: string, scope: readonly string[]): Promise<string[] | undefined> {
  const packages = await workspacePackages(new FsWorkspace(root));
  if (!packages.length || !scope.length) return undefined;
  const owners = [...new Set(scope.map((p) => packageOf(packages, p)))];
  const inScope = owners.filter((p): p is WorkspacePackage => p !== undefined);
  const dirs = [
    ...(owners.includes(undefined) ? [''] : []),
    ...inScope.map((p) => p.dir),
    ...dependentsOf(packages, inScope).map((p) => p.dir),
  ];
  // A package without a tsconfig.json of its own is checked by the root's, as its editor would.
  return [...new Set(dirs.map((d) => (d && existsSync(join(root, d, 'tsconfig.json')) ? `${d}/tsconfig.json` : 'tsconfig.json')))];
}

/** One result over several projects: an error found anywhere fails it; a file checked twice is reported once. */
function mergeResults(results: { tsconfig: string; r: TypeCheckResult }[]): TypeCheckResult {
  const seen = new Set<string>();
  const diagnostics = results
    .flatMap(({ r }) => r.diagnostics)
    .filter((d) => {
      const key = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    });
  const has = (status: TypeCheckResult['status']) => results.some(({ r }) => r.status === status);
  const status = has('failed') ? 'failed' : has('error') ? 'error' : has('passed') ? 'passed' : 'skipped';
  return {
    status,
    diagnostics: [...diagnostics.filter((d) => d.category === 'error'), ...diagnostics.filter((d) => d.category !== 'error')],
    tool: results.find(({ r }) => r.tool)?.r.tool ?? null,
    detail: results.map(({ tsconfig, r }) => `${tsconfig}: ${r.detail}`).join('; '),
    durationMs: results.reduce((sum, { r }) => sum + r.durationMs, 0),
  };
}

/** A package's bin entry, version and folder, found the way Node would from `dir`. */
function findBin(dir: string | undefined, pkgName: string, binName: string): { bin: string; version: string; dir: string } | undefined {
  if (!dir) return undefined;
  const manifest = new ToolResolver(dir).module(`${pkgName}/package.json`);
  if (!manifest) return undefined;
  const pkg = parsePackageJson(readFileSync(manifest, 'utf8'));
  const bin = typeof pkg.bin === 'object' ? pkg.bin[binName] : undefined;
  return bin ? { bin: join(dirname(manifest), bin), version: pkg.version ?? 'unknown', dir: dirname(manifest) } : undefined;
}

const findTsc = (dir: string | undefined) => findBin(dir, 'typescript', 'tsc');
const major = (version: string) => Number(version.split('.')[0]);

/**
 * TypeScript 7's native compiler when the project declares it in its package.json beside its
 * own TypeScript 5: `@typescript/native-preview` (tsgo), or an npm alias of typescript 7
 * (`"typescript-7": "npm:typescript@7"`). Declared, not merely resolvable: a compiler hoisted
 * into a shared node_modules is not the project's choice.
 */
function findNative(root: string): { name: string; bin: string; version: string; dir: string } | undefined {
  let declared: Record<string, string>;
  try {
    const pkg = parsePackageJson(readFileSync(join(root, 'package.json'), 'utf8'));
    declared = { ...pkg.dependencies, ...pkg.devDependencies };
  } catch {
    return undefined;
  }
  for (const [name, spec] of Object.entries(declared)) {
    const binName =
      name === '@typescript/native-preview' || /^npm:@typescript\/native-preview@/.test(spec)
        ? 'tsgo'
        : /^npm:typescript@/.test(spec)
          ? 'tsc'
          : undefined;
    const found = binName && findBin(root, name, binName);
    if (binName && found && major(found.version) >= 7) return { name: binName, ...found };
  }
  return undefined;
}

/** A compiler to run: what the result names, its bin, and its package's folder. */
type Found = TypeCheckTool & { bin: string; dir: string };

/** What a check in the type-check worker needs to know. */
interface Served {
  tool: TypeCheckTool;
  dir: string;
  label: string;
  configFile: string;
  timeoutMs: number;
  jail: ProcessJail;
  tsBuildInfoFile: string | undefined;
}

const parseTscAnswer = answerLine(TscAnswer, 'the type-check worker answered something that is not a type-check answer');

/** The promise's value, or undefined once the signal aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const stop = () => resolve(undefined);
    signal.addEventListener('abort', stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

interface Ahead {
  key: string;
  stamp: string;
  controller: AbortController;
  /** undefined: it failed to run or was stopped. */
  result: Promise<TypeCheckResult | undefined>;
}

const scopeKey = (scope: readonly string[]) => JSON.stringify([...scope].sort());

/** Compiler-option errors (TS5xxx) with no file of the project: the compiler could not take the tsconfig. */
const configOnly = (diagnostics: CodeDiagnostic[], configFile: string, root: string) =>
  diagnostics.length > 0 && diagnostics.every((d) => /^TS5\d{3}$/.test(d.code) && d.file === workspacePath(root, configFile));

/**
 * TypeCheckPort over `tsc --noEmit`: the workspace's own TypeScript from its node_modules,
 * whatever its version (5.x in JavaScript, 7.x native behind the same bin), or Ticket Runner's
 * bundled one when the workspace has none, which the result says. When the project also
 * declares TypeScript 7's native compiler beside a TypeScript 5, the gate uses the native one:
 * on a 100k-line repo it checks several times faster (npm run bench measures it). Should the
 * native compiler refuse the tsconfig itself, the check is made again with the workspace's tsc
 * and the result says so. Runs as a child process group with a time limit, killed as a group
 * on timeout or cancel.
 */
export class TscTypeCheck implements TypeCheckPort {
  /** Where this checker's incremental build state lives; made at the first check. */
  private buildInfoDir: string | undefined;
  /** The check started ahead of its gate, and the workspace's stamp from before it started. */
  private ahead: Ahead | undefined;
  /** The type-check worker, started at the first check it can make. */
  private server: JsonLineWorker<TscAnswer | { id: number; error: string }> | undefined;
  /** Why the worker cannot check, once it could not: every later check starts tsc. */
  private serverOff: string | undefined;
  /** One check at a time in the worker: a dropped one ends before the next starts. */
  private serverTurn: Promise<unknown> = Promise.resolve();
  /** Once the run is over, a check still under way starts nothing more (no tsc in its place). */
  private disposed = false;
  /** The check `warm` started, which every later check waits for: one tsc at a time on the build state. */
  private warming: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TscTypeCheckOptions) {}

  /** Stops a check started ahead and removes the incremental build state. */
  dispose(): void {
    this.disposed = true;
    this.dropAhead();
    void this.server?.stop();
    this.server = undefined;
    if (this.buildInfoDir) rmSync(this.buildInfoDir, { recursive: true, force: true });
    this.buildInfoDir = undefined;
  }

  /**
   * Starts the check while the attempt's tests run: on two cores the tests use one and tsc the
   * other. Those tests may write the workspace, and the side-effect guard puts the writes back
   * only once they end, so a tsc beside them could read a file the code under test changed for a
   * moment (fixed its own type error, say) and pass code that is wrong. Its result is taken only
   * when the workspace's stamp is the same after it as before it started, so that no file can
   * have changed while tsc read; any write at all, even one put back, sends the gate to check
   * again. Installed packages are left out of the stamp: a test run that writes one cannot pass.
   */
  async prefetch(signal: AbortSignal, scope: readonly string[] = []): Promise<{ drop(): void }> {
    const earlier = this.ahead;
    this.dropAhead();
    // The stamp is the workspace's before the tests start, whenever tsc gets to read it.
    const stamp = await workspaceStamp(this.options.root).catch(() => undefined);
    if (!stamp || signal.aborted) return { drop: () => undefined };
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    // One tsc at a time on the build state: an earlier one, stopped, and the warm-up end before
    // this one starts. They are waited for here, never by the tests this check runs beside.
    const result = (async () => {
      await earlier?.result;
      await this.warming;
      return controller.signal.aborted ? undefined : this.checkNow(controller.signal, scope, signal);
    })()
      .catch(() => undefined)
      .finally(() => signal.removeEventListener('abort', stop));
    const ahead: Ahead = { key: scopeKey(scope), stamp, controller, result };
    this.ahead = ahead;
    return { drop: () => (this.ahead === ahead ? this.dropAhead() : undefined) };
  }

  private dropAhead(): void {
    this.ahead?.controller.abort();
    this.ahead = undefined;
  }

  /** The check started ahead, when it ran to the end over the workspace as it is now. */
  private async takeAhead(scope: readonly string[]): Promise<TypeCheckResult | undefined> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (!ahead || ahead.key !== scopeKey(scope) || ahead.controller.signal.aborted) {
      ahead?.controller.abort();
      await ahead?.result;
      return undefined;
    }
    const unchanged = async () => (await workspaceStamp(this.options.root).catch(() => undefined)) === ahead.stamp;
    // Changed already: stop it, and wait for its tsc to end before another uses the build state.
    if (!(await unchanged())) ahead.controller.abort();
    const r = await ahead.result;
    if (ahead.controller.signal.aborted || !r || (r.status !== 'passed' && r.status !== 'failed') || !(await unchanged())) return undefined;
    return { ...r, detail: `${r.detail}, started beside the attempt's tests, no file changed since` };
  }

  /**
   * The flags that make a second check of the same project (the gate after the baseline) re-check
   * only what changed since the first: TypeScript's own incremental build, its state in a folder
   * of this checker's outside the workspace, which only tsc may write (the sandbox lets the code
   * under test write the workspace and its own folder, never this one). A forged state could
   * otherwise say a changed file has no errors. The workspace's own `tsBuildInfoFile`, if any, is
   * never read nor written. TypeScript 7's native compiler runs without it: a full check each time.
   */
  private incremental(tool: TypeCheckTool, configFile: string): { args: string[]; writable: string[]; file?: string } {
    if (tool.name !== 'tsc' || major(tool.version) >= 7) return { args: [], writable: [] };
    this.buildInfoDir ??= mkdtempSync(join(this.options.stateParent ?? tmpdir(), 'ticket-runner-tsc-'));
    const file = join(this.buildInfoDir, `${createHash('sha256').update(configFile).digest('hex').slice(0, 16)}.tsbuildinfo`);
    return { args: ['--incremental', '--tsBuildInfoFile', file], writable: [this.buildInfoDir], file };
  }

  /** Which tsc a check would run, or undefined when there is none at all. */
  tool(): Found | undefined {
    const own = findTsc(this.options.root);
    const native = !own || major(own.version) < 7 ? findNative(this.options.root) : undefined;
    if (native) return { name: native.name, version: native.version, source: 'workspace', bin: native.bin, dir: native.dir };
    if (own) return { name: 'tsc', version: own.version, source: 'workspace', bin: own.bin, dir: own.dir };
    const bundled = findTsc(this.options.fallbackDir);
    return bundled && { name: 'tsc', version: bundled.version, source: 'bundled', bin: bundled.bin, dir: bundled.dir };
  }

  async check(signal: AbortSignal, scope: readonly string[] = []): Promise<TypeCheckResult> {
    await this.warming;
    return (await this.takeAhead(scope)) ?? this.checkNow(signal, scope);
  }

  /**
   * Checks the project as it is now, for its state alone: the worker keeps the program it built,
   * and TypeScript's incremental state the files' results, so the checks to come (the one
   * beside the first attempt's tests, the gate) re-check only what the run changed. Only where
   * a later check can use that state (tsc 5 and 6; TypeScript 7's native compiler keeps none).
   * The result is dropped: a check's verdict always comes from a check of its own.
   */
  warm(signal: AbortSignal, scope: readonly string[] = []): void {
    const found = this.tool();
    if (this.disposed || this.ahead || !found || found.name !== 'tsc' || major(found.version) >= 7) return;
    const warming = this.checkNow(signal, scope).catch(() => undefined);
    this.warming = warming;
  }

  /**
   * `signal` stops the check; `killSignal` also ends the type-check worker, which a dropped check
   * started ahead leaves running, so that the worker keeps its state for the next.
   */
  private async checkNow(signal: AbortSignal, scope: readonly string[], killSignal = signal): Promise<TypeCheckResult> {
    const projects = this.options.tsconfig ? undefined : await packageProjects(this.options.root, scope);
    if (!projects) return this.checkProject(this.options.tsconfig ?? 'tsconfig.json', signal, killSignal);
    const results: { tsconfig: string; r: TypeCheckResult }[] = [];
    for (const tsconfig of projects) results.push({ tsconfig, r: await this.checkProject(tsconfig, signal, killSignal) });
    return mergeResults(results);
  }

  private async checkProject(tsconfig: string, signal: AbortSignal, killSignal: AbortSignal): Promise<TypeCheckResult> {
    const { root } = this.options;
    const configFile = join(root, tsconfig);
    if (!existsSync(configFile))
      return { status: 'skipped', diagnostics: [], tool: null, detail: `no ${tsconfig}: nothing project-wide to check`, durationMs: 0 };
    const found = this.tool();
    if (!found)
      return {
        status: 'error',
        diagnostics: [],
        tool: null,
        detail: 'no TypeScript in the workspace nor beside Ticket Runner',
        durationMs: 0,
      };
    const first = await this.run(found, configFile, signal, killSignal);
    const own = found.name !== 'tsc' || major(found.version) >= 7 ? findTsc(root) : undefined;
    if (own && major(own.version) < 7 && first.status === 'failed' && configOnly(first.diagnostics, configFile, root)) {
      const again = await this.run(
        { name: 'tsc', version: own.version, source: 'workspace', bin: own.bin, dir: own.dir },
        configFile,
        signal,
        killSignal,
      );
      const refused = first.diagnostics.map((d) => `${d.code} ${d.message.split('\n')[0]}`).join('; ');
      return { ...again, detail: `${again.detail}; ${found.name} ${found.version} (native) refused the tsconfig: ${refused}` };
    }
    return first;
  }

  /**
   * The check in the type-check worker, for TypeScript 5 and 6 when the build ships the worker;
   * undefined when it cannot make it (the caller then starts tsc), which later checks remember.
   * A check dropped by `signal` goes on in the worker, so that it keeps its state; `killSignal`
   * (the run's) ends the worker.
   */
  private async serve(c: Served, signal: AbortSignal, killSignal: AbortSignal): Promise<TypeCheckResult | undefined> {
    const script = this.options.serverScript;
    const version = major(c.tool.version);
    if (!script || this.serverOff || !c.tsBuildInfoFile || c.tool.name !== 'tsc' || !(version >= 5 && version < 7)) return undefined;
    const server = (this.server ??= new JsonLineWorker({
      jail: c.jail,
      nodePath: this.options.nodePath ?? 'node',
      script,
      cwd: this.options.root,
      parse: parseTscAnswer,
      name: 'the type-check worker',
    }));
    const request = { typescript: c.dir, configFile: c.configFile, tsBuildInfoFile: c.tsBuildInfoFile };
    const started = Date.now();
    const turn = this.serverTurn.then(() => (signal.aborted ? undefined : server.ask(request, killSignal, c.timeoutMs)));
    this.serverTurn = turn.catch(() => undefined);
    const outcome = await untilAborted(turn, signal);
    if (!outcome || ('stopped' in outcome && outcome.stopped === 'aborted')) throw new CancelledError('type-check cancelled');
    const base = { tool: c.tool, durationMs: Date.now() - started };
    if ('stopped' in outcome && outcome.stopped === 'timeout')
      return { ...base, status: 'error', diagnostics: [], detail: `${c.label}: ${outcome.detail}` };
    // The run ended while it checked: nothing more starts, no tsc in its place.
    if (this.disposed) throw new CancelledError('type-check cancelled: the run is over');
    const a = 'answer' in outcome ? outcome.answer : undefined;
    if (!a || !('output' in a)) {
      this.serverOff = c.jail.redactor.text(
        a ? ('unsupported' in a ? a.unsupported : a.error) : 'detail' in outcome ? outcome.detail : 'no answer',
      );
      void server.stop();
      this.server = undefined;
      return undefined;
    }
    // Redacted as tsc's own output is by the jail: a message may quote a literal of the code.
    const output = c.jail.redactor.text(a.output);
    const diagnostics = parseTscOutput(output, this.options.root, c.configFile);
    const errors = diagnostics.filter((d) => d.category === 'error');
    const kept = a.reused
      ? `kept running for the run: ${a.reused} of ${a.files} files unchanged since its last check`
      : `kept running for the run's later checks: ${a.files} files parsed`;
    if (errors.length) return { ...base, status: 'failed', diagnostics, detail: `${c.label}, ${kept}` };
    if (a.errors > 0)
      return {
        ...base,
        status: 'error',
        diagnostics,
        detail: `${c.label} counted ${a.errors} errors, but its output holds none: ${output.trim().slice(-300)}`,
      };
    return { ...base, status: 'passed', diagnostics, detail: `${c.label}, ${kept}` };
  }

  private async run(found: Found, configFile: string, signal: AbortSignal, killSignal: AbortSignal): Promise<TypeCheckResult> {
    const { root } = this.options;
    const { bin, dir, ...tool } = found;
    const whose = tool.source === 'workspace' ? "the workspace's own" : 'bundled: the workspace has no typescript';
    let label = `${tool.name} ${tool.version} (${whose}${tool.name !== 'tsc' || major(tool.version) >= 7 ? ', native' : ''})`;
    const timeoutMs = this.options.timeoutMs ?? 300_000;
    const jail = this.options.jail ?? ProcessJail.plain(root);
    const incremental = this.incremental(tool, configFile);
    const served = await this.serve(
      { tool, dir, label, configFile, timeoutMs, jail, tsBuildInfoFile: incremental.file },
      signal,
      killSignal,
    );
    if (served) return served;
    // The worker could not check (an older TypeScript, a crash): tsc judges, and the result says why.
    if (this.options.serverScript && this.serverOff && tool.name === 'tsc' && major(tool.version) >= 5 && major(tool.version) < 7) {
      label += `; tsc ran on its own: the process kept for the run's checks could not check (${this.serverOff.split('\n')[0]!.slice(0, 200)})`;
    }
    if (this.disposed) throw new CancelledError('type-check cancelled: the run is over');
    const run = await jail.run(
      this.options.nodePath ?? 'node',
      [bin, '--noEmit', '-p', configFile, '--pretty', 'false', ...incremental.args],
      {
        cwd: root,
        timeoutMs,
        signal,
        tailChars: 200_000,
        writable: incremental.writable,
      },
    );
    const base = { tool, durationMs: run.durationMs };
    if (run.stopped === 'abort') throw new CancelledError('type-check cancelled');
    if (run.stopped === 'timeout')
      return { ...base, status: 'error', diagnostics: [], detail: `${label} killed after ${timeoutMs} ms, with its process group` };
    if (run.spawnError) return { ...base, status: 'error', diagnostics: [], detail: `${label} could not start: ${run.spawnError.message}` };
    const diagnostics = parseTscOutput(run.output, root, configFile);
    const errors = diagnostics.filter((d) => d.category === 'error');
    if (errors.length) return { ...base, status: 'failed', diagnostics, detail: label };
    if (run.exitCode !== 0)
      return {
        ...base,
        status: 'error',
        diagnostics,
        detail: `${label} exited with ${String(run.exitCode)} and no diagnostic: ${run.output.trim().slice(-300)}`,
      };
    return { ...base, status: 'passed', diagnostics, detail: label };
  }
}
