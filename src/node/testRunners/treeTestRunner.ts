import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { cp, mkdir, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { JudgingToolFile } from '../../core/schema/events';
import type { TestRunRequest, TestRunnerPort, TestsToPrepare } from '../../core/ports/checks';
import type { CoveragePort, CoverageResult, MeasuredRun } from '../../core/ports/gates';
import type { TestRunResult, WorkspaceEdit } from '../../core/schema/checks';
import { runsCodeLater } from './sideEffects';
import type { TestTree, TreeChange } from './testTree';

/**
 * What the editor knows of the user's saves: whether it saved `rel` (from the workspace root)
 * with exactly the bytes of sha256 `digest` since `since` (ms since the epoch).
 */
export interface UserSaves {
  saved(rel: string, digest: string, since: number): boolean;
}

export interface TreeRunOptions {
  tree: TestTree;
  /** Whether the commands run in the OS sandbox, which lets them write the copy and never the workspace. */
  sandboxed: boolean;
  /** The editor's record of the user's saves; none on the command line. */
  userSaves?: UserSaves;
}

/** The run store's folder for the files a run could not tell who wrote, from the workspace root. */
export const UNATTRIBUTED_DIR = '.ticket-runner/unattributed';

/**
 * The run's test commands in its copy of the workspace (testTree.ts): before each command the
 * copy is brought to the workspace as it stands; the command runs there; then what changed in
 * the workspace meanwhile is told apart. With the sandbox on, no command could write the
 * workspace, so each change is the user's and stays as it is. Without it, a change the editor
 * saved is the user's; any other is kept as it is too (never put back: it may be the user's),
 * with a copy under the run store, and the result is void (a command may have written it): the
 * run stops, naming the file, and never passes on it. One for the run, shared by the test
 * runner and the coverage gate, so either's finding stops the run.
 *
 * The copy's paths in what a command printed are the workspace's again, so the Coder and the
 * Debugger read the files they know.
 */
export class TreeCommands {
  private readonly unknown = new Set<string>();
  /** The user's changes not yet asked for (`userSaves`), by path: the last one of each. */
  private readonly saves = new Map<string, WorkspaceEdit>();
  private commands = 0;

  constructor(readonly o: TreeRunOptions) {}

  /** `run` in the copy, with each test result in what it gives (`map`) told the workspace's changes meanwhile. */
  async around<T>(run: () => Promise<T>, map: (value: T, tell: (r: TestRunResult) => TestRunResult) => T): Promise<T> {
    const { value, edits, started } = await inTree(this.o.tree, run);
    const told = await this.tell(edits, started);
    return map(value, (r) => namedInWorkspace(withEdits(r, told), this.o.tree));
  }

  unattributed(): string[] {
    return [...this.unknown].sort();
  }

  /** The user's changes seen since the last call, in the order first seen. */
  userSaves(): WorkspaceEdit[] {
    const out = [...this.saves.values()];
    this.saves.clear();
    return out;
  }

  /** Who wrote each change: the user, or (without the sandbox, and unsaved by the editor) nobody can tell. */
  private async tell(changes: readonly TreeChange[], since: number): Promise<WorkspaceEdit[]> {
    if (!changes.length) return [];
    const n = ++this.commands;
    const out: WorkspaceEdit[] = [];
    for (const c of changes) {
      if (this.o.sandboxed || (await this.savedByUser(c, since))) {
        const edit: WorkspaceEdit = { ...c, by: 'user' };
        out.push(edit);
        this.saves.set(c.path, edit);
        continue;
      }
      this.unknown.add(c.path);
      const kept = await this.keep(c, n);
      // What git or the editor runs later, outside any sandbox, is not left armed: put back, the found version kept.
      const putBack = runsCodeLater(c.path) && (await this.o.tree.putBack(c.path));
      out.push({ ...c, by: 'unknown', ...kept, ...(putBack ? { putBack } : {}) });
    }
    return out;
  }

  private async savedByUser(c: TreeChange, since: number): Promise<boolean> {
    if (!this.o.userSaves || c.change === 'deleted') return false;
    const bytes = await readFile(path.join(this.o.tree.root, c.path)).catch(() => undefined);
    return bytes !== undefined && this.o.userSaves.saved(c.path, createHash('sha256').update(bytes).digest('hex'), since);
  }

  /** A copy of the file as found, under the run store: for a look, whoever wrote it. */
  private async keep(c: TreeChange, n: number): Promise<{ keptCopy?: string }> {
    if (c.change === 'deleted') return {};
    const rel = path.posix.join(UNATTRIBUTED_DIR, String(n), c.path);
    const to = path.join(this.o.tree.root, rel);
    try {
      await mkdir(path.dirname(to), { recursive: true });
      await cp(path.join(this.o.tree.root, c.path), to, { recursive: true, verbatimSymlinks: true });
      return { keptCopy: rel };
    } catch {
      return {};
    }
  }
}

/** The workspace's test runner, bound to the run's copy of it (TreeCommands). */
export class TreeTestRunner implements TestRunnerPort {
  constructor(
    private readonly inner: TestRunnerPort,
    private readonly commands: TreeCommands,
  ) {}

  run(request: TestRunRequest, signal: AbortSignal): Promise<TestRunResult> {
    return this.commands.around(
      () => this.inner.run(request, signal),
      (r, tell) => tell(r),
    );
  }

  prepare(request: TestsToPrepare, loads: readonly string[]): void {
    // The files it compiles ahead are read from the copy: brought up to date first.
    void this.commands.o.tree.sync().then(
      () => this.inner.prepare?.(request, loads),
      () => undefined,
    );
  }

  unrestoredTools(signal: AbortSignal): Promise<JudgingToolFile[]> {
    return this.inner.unrestoredTools?.(signal) ?? Promise.resolve([]);
  }

  async stillChangedTools(files: readonly JudgingToolFile[]): Promise<JudgingToolFile[]> {
    // Asked before any command of this process (resume): the copy, and its links to the packages, are made first.
    await this.commands.o.tree.sync();
    return (await this.inner.stillChangedTools?.(files)) ?? [];
  }

  unattributedWrites(): string[] {
    return this.commands.unattributed();
  }

  /** The coverage gate's commands included: they share the commands' record. */
  userSavesSeen(): WorkspaceEdit[] {
    return this.commands.userSaves();
  }

  async dispose(): Promise<void> {
    await this.inner.dispose?.();
    await this.commands.o.tree.dispose();
  }
}

/** The coverage gate's runs, in the run's copy of the workspace (TreeCommands). */
export class TreeCoverage implements CoveragePort {
  constructor(
    private readonly inner: CoveragePort & Required<Pick<CoveragePort, 'measuresAsItRuns' | 'measuredRun'>>,
    private readonly commands: TreeCommands,
  ) {}

  measuresAsItRuns(framework: TestRunRequest['framework']): boolean {
    return this.inner.measuresAsItRuns(framework);
  }

  run(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<CoverageResult> {
    return this.commands.around(() => this.inner.run(request, signal), told);
  }

  measuredRun(request: TestRunRequest & { measure: string[] }, signal: AbortSignal): Promise<MeasuredRun> {
    return this.commands.around(
      () => this.inner.measuredRun(request, signal),
      (r, tell) => ({ ...(r.tests ? { tests: tell(r.tests) } : {}), coverage: r.coverage.then((c) => told(c, tell)) }),
    );
  }
}

function told(c: CoverageResult, tell: (r: TestRunResult) => TestRunResult): CoverageResult {
  return c.tests ? { ...c, tests: tell(c.tests) } : c;
}

/** `run` on the copy brought to the workspace first, with the workspace's changes from then to its end, and when that was. */
export async function inTree<T>(tree: TestTree, run: () => Promise<T>): Promise<{ value: T; edits: TreeChange[]; started: number }> {
  const started = Date.now();
  const before = await tree.sync();
  const value = await run();
  return { value, edits: await tree.changedSince(before), started };
}

/**
 * The result with the workspace's changes while it ran. One nothing tells who wrote makes it
 * void: an error, never a verdict, whatever the tests said.
 */
export function withEdits(r: TestRunResult, edits: readonly WorkspaceEdit[]): TestRunResult {
  if (!edits.length) return r;
  const list = (es: readonly WorkspaceEdit[]) =>
    es
      .map(
        (e) =>
          `${e.change} ${e.path}${e.putBack ? ' (put back: git or the editor runs it outside any sandbox)' : ''}${e.keptCopy ? ` (found as kept in ${e.keptCopy})` : ''}`,
      )
      .join(', ');
  const user = edits.filter((e) => e.by === 'user');
  const unknown = edits.filter((e) => e.by === 'unknown');
  const notes = [
    ...(user.length ? [`[ticket-runner] saved in the workspace while the tests ran, and kept as it is: ${list(user)}`] : []),
    ...(unknown.length
      ? [
          `[ticket-runner] changed in the workspace while the tests ran without the sandbox, and nothing tells whether the tests or you wrote it: kept as it is unless said, and this result does not count: ${list(unknown)}`,
        ]
      : []),
  ];
  return {
    ...r,
    ...(unknown.length ? { status: 'error' as const } : {}),
    workspaceEdits: [...edits],
    output: [r.output, ...notes].join('\n'),
  };
}

/** The result with the copy's paths written as the workspace's, wherever the command printed them. */
export function namedInWorkspace(r: TestRunResult, tree: Pick<TestTree, 'dir' | 'root'>): TestRunResult {
  const names = [...new Set([tree.dir, realOr(tree.dir)])].sort((a, b) => b.length - a.length);
  const fix = (s: string): string => names.reduce((t, n) => t.split(n).join(tree.root), s);
  const fixOpt = (s: string | undefined): string | undefined => (s === undefined ? s : fix(s));
  return {
    ...r,
    command: r.command.map(fix),
    output: fix(r.output),
    cases: r.cases.map((c) => ({
      ...c,
      ...(c.message !== undefined ? { message: fixOpt(c.message) } : {}),
      ...(c.stack !== undefined ? { stack: fixOpt(c.stack) } : {}),
      ...(c.file !== undefined ? { file: fixOpt(c.file) } : {}),
    })),
  };
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
