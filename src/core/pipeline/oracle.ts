import type { TestRunResult } from '../schema/checks';
import { DEFAULT_TEST_TIMEOUT_MS, RunStop, type RunContext } from './context';

/** A file the verdict rests on whose bytes are no longer what the run wrote or read. */
export interface TamperedFile {
  path: string;
  /** The hash the run recorded. */
  expected: string;
  /** The hash found now; null when the file is gone. */
  actual: string | null;
}

/** When a check of the oracle ran: around a test run, or before a verdict. */
export type OracleCheckpoint = 'beforeTests' | 'afterTests' | 'beforeVerdict';

/**
 * The oracle: the rendered test files, byte for byte as the materializer wrote them, and the
 * ticket as the run read it. The code under test runs in the same workspace and could rewrite
 * its own judge (a module the test imports can overwrite the test file), so these hashes are
 * checked before and after every test run and before every verdict. A mismatch is restored
 * from the recorded content and fails what was being judged. This check needs no sandbox; the
 * sandbox's read-only mounts are a second line in front of it.
 */
export class Oracle {
  private readonly files = new Map<string, { hash: string; content: string }>();

  constructor(private readonly hash: (content: string) => string) {}

  /** Records a file's trusted content (a rendered test, the ticket). */
  pin(path: string, content: string): void {
    this.files.set(path, { hash: this.hash(content), content });
  }

  get paths(): string[] {
    return [...this.files.keys()];
  }

  /** The pinned files whose bytes on disk differ from what was pinned. */
  async changed(read: (path: string) => Promise<string | null>): Promise<TamperedFile[]> {
    const out: TamperedFile[] = [];
    for (const [path, pinned] of this.files) {
      const now = await read(path);
      const actual = now === null ? null : this.hash(now);
      if (actual !== pinned.hash) out.push({ path, expected: pinned.hash, actual });
    }
    return out;
  }

  /** The trusted content of a pinned file. */
  contentOf(path: string): string | undefined {
    return this.files.get(path)?.content;
  }
}

/**
 * Checks the oracle at a checkpoint; a changed file is recorded (`oracle.tampered`), its
 * changed bytes kept in the blob store for the record, and its trusted content written back.
 * Returns what changed (empty: intact). Without an oracle (a run that rendered nothing yet)
 * there is nothing to check.
 */
export async function guardOracle(ctx: RunContext, attempt: number, at: OracleCheckpoint): Promise<TamperedFile[]> {
  await guardRunLog(ctx);
  const oracle = ctx.oracle;
  if (!oracle) return [];
  const { workspace } = ctx.deps;
  const changed = await oracle.changed((p) => workspace.readFile(p));
  if (!changed.length) return [];
  const restored = [];
  for (const t of changed) {
    const now = await workspace.readFile(t.path);
    const trusted = oracle.contentOf(t.path)!;
    await workspace.writeFile(t.path, trusted);
    restored.push({ path: t.path, before: now === null ? null : await ctx.log.putBlob(now), after: await ctx.log.putBlob(trusted) });
  }
  await ctx.log.emit({ type: 'oracle.tampered', attempt, at, files: changed });
  await ctx.log.emit({ type: 'files.written', attempt, by: 'oracle', files: restored });
  return changed;
}

/**
 * The run's own record: the log on disk must hold exactly the events this run wrote. Code under
 * test that edits or appends to it (with no sandbox to make it read-only) could make every view
 * of the run say something the run never did; the log cannot be put back line by line, so the
 * run stops here, failed, and the views of the damaged file refuse it (they name the line).
 */
async function guardRunLog(ctx: RunContext): Promise<void> {
  if (await ctx.log.matchesStore()) return;
  const file = ctx.log.path.replace(/\\/g, '/');
  const rel = file.startsWith(ctx.deps.workspaceRoot.replace(/\\/g, '/') + '/') ? file.slice(ctx.deps.workspaceRoot.length + 1) : file;
  throw new RunStop({ kind: 'oracleTampered', files: [rel] }, 'failed');
}

/** One line per changed file, for the failure text the Coder and the Debugger read. */
export function describeTampering(files: readonly TamperedFile[]): string[] {
  return files.map((f) =>
    f.actual === null
      ? `${f.path} was deleted during the attempt; Ticket Runner restored it. The code must not touch the tests or the ticket.`
      : `${f.path} was changed during the attempt; Ticket Runner restored it. The code must not write the tests or the ticket.`,
  );
}

/**
 * The ticket's rendered tests, run between two checks of the oracle. A run during which the
 * oracle changed cannot pass, whatever the runner reported: its result is failed, with the
 * change named in the output the Coder and the Debugger read. `tampered` lists what changed.
 */
export async function runOracleTests(ctx: RunContext, attempt: number): Promise<{ result: TestRunResult; tampered: TamperedFile[] }> {
  const { deps, manifest, signal } = ctx;
  const before = await guardOracle(ctx, attempt, 'beforeTests');
  const ran = await deps.tests.run({ framework: manifest.runner.framework, files: manifest.testFiles, timeoutMs: deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS }, signal);
  const after = await guardOracle(ctx, attempt, 'afterTests');
  // The runner may have put a changed file back already (its side-effect check): a pinned file among them was tampered with all the same.
  const pinned = new Set(ctx.oracle?.paths ?? []);
  const undone = (ran.sideEffects ?? []).filter((s) => pinned.has(s.path) && !after.some((t) => t.path === s.path));
  if (undone.length) {
    const files = undone.map((s) => ({ path: s.path, expected: ctx.deps.hash(ctx.oracle!.contentOf(s.path)!), actual: s.change === 'deleted' ? null : 'put back by the test runner' }));
    await ctx.log.emit({ type: 'oracle.tampered', attempt, at: 'afterTests', files });
    after.push(...files);
  }
  const tampered = [...before, ...after];
  if (!tampered.length) return { result: ran, tampered };
  const note = ['[ticket-runner] the oracle changed around this test run, so its result cannot count:', ...describeTampering(tampered)].join('\n');
  return { result: { ...ran, status: ran.status === 'passed' ? 'failed' : ran.status, output: `${ran.output}\n${note}` }, tampered };
}
