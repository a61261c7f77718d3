import { UserInputError } from '../../errors';
import type { TestCaseResult } from '../../schema/checks';
import type { RunEvent } from '../../schema/events';
import type { Manifest } from '../../schema/manifest';
import { authoredTests, type TestFramework } from '../../schema/testPlan';
import { DEFAULT_TEST_TIMEOUT_MS, type RunContext } from '../common/context';
import { plannedCases, reportedFile, type PlannedCase } from './plannedCases';
import { readTestSource } from '../common/testSource';

/**
 * Tests the author wrote, as the oracle. Their cases are not in the ticket, so the run asks the
 * runner once, before the Coder writes anything (or reads the file's text, when it cannot load
 * yet), and records the list (`authored.listed`) with each file's bytes and how its cases were found; from then on the files are pinned as rendered tests are, and every listed
 * case must be reported passed. A case the Coder's code skips, renames or makes vanish is then a
 * failure with its name, whatever the runner's exit code says.
 */

type Listed = Extract<RunEvent, { type: 'authored.listed' }>;

/** A case of an authored file as the listing found it, and whether the author left it skipped. */
export interface ListedCase {
  file: string;
  name: string;
  skipped: boolean;
}

/** The authored test files of a manifest, visible first, each with whether it is held out. */
export function authoredFiles(manifest: Pick<Manifest, 'testPlan' | 'heldOut'>): { path: string; heldOut: boolean }[] {
  return [
    ...authoredTests(manifest.testPlan).map((a) => ({ path: a.path, heldOut: false })),
    ...(manifest.heldOut.authored ?? []).map((path) => ({ path, heldOut: true })),
  ];
}

function listedOf(events: readonly RunEvent[]): Listed | undefined {
  return events.find((e): e is Listed => e.type === 'authored.listed');
}

/**
 * Lists the authored files' cases on the project as it is and pins the visible files; the
 * held-out ones then leave the workspace (stashHeldOut). A resumed run pins the bytes its log
 * recorded, not what is on disk now: the file may have been changed while no run watched it.
 */
export async function listAuthoredCases(ctx: RunContext): Promise<void> {
  const files = authoredFiles(ctx.manifest);
  if (!files.length) return;
  const { deps, log } = ctx;
  const recorded = listedOf(log.events);
  if (recorded) {
    for (const f of recorded.files) if (!f.heldOut) ctx.oracle?.pin(f.path, await log.getBlob(f.hash));
    return stashHeldOut(ctx);
  }
  const pinned: Listed['files'] = [];
  const texts: string[] = [];
  for (const f of files) {
    const content = await deps.workspace.readFile(f.path);
    if (content === null)
      throw new UserInputError(`${f.path}, a test file the ticket names in testPlan.authored, is gone: put it back, or fix the path`);
    pinned.push({ path: f.path, hash: await log.putBlob(content), heldOut: f.heldOut });
    texts.push(content);
    if (!f.heldOut) ctx.oracle?.pin(f.path, content);
  }
  const paths = files.map((f) => f.path);
  const ran = await deps.tests.run(
    { framework: ctx.manifest.runner.framework, files: paths, timeoutMs: deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS },
    ctx.signal,
  );
  const reported = listedCases(ran.cases, paths);
  const cases: Listed['cases'] = [];
  const skipped: Listed['cases'] = [];
  for (const [i, f] of files.entries()) {
    const ranOwn = reported.filter((c) => c.file === f.path);
    pinned[i]!.found = ranOwn.length ? 'ran' : 'read';
    const own = ranOwn.length ? ranOwn : readCases(f.path, texts[i]!, ctx.manifest.runner.framework);
    // What the author left skipped is no work the ticket asks for; a file with nothing else judges nothing.
    if (own.every((c) => c.skipped))
      throw new UserInputError(
        `every case in ${f.path} (testPlan.authored) is skipped (.skip, .todo or an x name), so it can judge nothing: un-skip the cases the ticket is to make pass`,
      );
    for (const c of own) (c.skipped ? skipped : cases).push({ file: c.file, name: c.name });
  }
  await log.emit({ type: 'authored.listed', files: pinned, cases, ...(skipped.length ? { skipped } : {}) });
  await stashHeldOut(ctx);
}

/**
 * A held-out authored file is off disk for the whole run, as a rendered held-out file is: the
 * Coder's editor finds nothing at its path, and code that `run_tests` (or a visible run) loads
 * cannot read it and print it. Its bytes are in the log; the judging command alone has it on
 * disk (heldOutRun.ts), and the run's end puts it back (putBackHeldOut).
 */
async function stashHeldOut(ctx: RunContext): Promise<void> {
  for (const f of await heldOutAuthored(ctx)) await ctx.deps.workspace.deleteFile(f.path);
}

/** The held-out authored files with the bytes the log recorded; a file the log has no bytes for judges nothing, and fails closed. */
export async function heldOutAuthored(ctx: Pick<RunContext, 'log'>): Promise<{ path: string; content: string }[]> {
  const files = listedOf(ctx.log.events)?.files.filter((f) => f.heldOut) ?? [];
  const out: { path: string; content: string }[] = [];
  for (const f of files) {
    const content = await ctx.log.getBlob(f.hash);
    if (content !== null) out.push({ path: f.path, content });
  }
  return out;
}

/** Every way out of a run puts the author's held-out files back as they wrote them. */
export async function putBackHeldOut(ctx: RunContext): Promise<void> {
  for (const f of await heldOutAuthored(ctx)) await ctx.deps.workspace.writeFile(f.path, f.content);
}

/**
 * The cases of a file the runner could not load on the project as it is (a test written first
 * imports code the ticket adds), read from its text and named as the runner will report them.
 * A file with a name that only running it could tell stops the run: see sourceCases.ts for why
 * it is not counted instead.
 */
function readCases(path: string, source: string, framework: TestFramework): ListedCase[] {
  const read = readTestSource(source);
  const where = read.unreadable.map((u) => `line ${u.line}, ${u.text}`).join('; ');
  if (read.unreadable.length)
    throw new UserInputError(
      `${path} (testPlan.authored) does not load on the project as it is, so its cases are read from its text, and ${read.unreadable.length === 1 ? 'this one has a name' : 'these have names'} only running it could tell (${where}): name each test and suite with a string literal, or make the file load before the Coder writes (a stub of what it imports)`,
    );
  if (!read.cases.length)
    throw new UserInputError(
      `the runner reported no case in ${path} (testPlan.authored) on the project as it is, and its text declares none: write its cases with describe/it or test, then run again`,
    );
  const joiner = framework === 'mocha' ? ' ' : ' > ';
  return read.cases.map((c) => ({ file: path, name: c.names.join(joiner), skipped: c.skipped }));
}

/**
 * The reported cases, each under the authored file it came from, once. A report that names no
 * file belongs to the only authored file, when there is one; otherwise it cannot be placed.
 */
export function listedCases(reported: readonly TestCaseResult[], paths: readonly string[]): ListedCase[] {
  const out: ListedCase[] = [];
  for (const c of reported) {
    const file = c.file === undefined ? (paths.length === 1 ? paths[0] : undefined) : reportedFile(c.file);
    // A "case" named as its file is the runner saying the file did not load: no case of the author's.
    const loadFailure = c.name === file || reportedFile(c.name) === file;
    if (file === undefined || loadFailure || !paths.includes(file) || out.some((o) => o.file === file && o.name === c.name)) continue;
    out.push({ file, name: c.name, skipped: c.status === 'skipped' });
  }
  return out;
}

/**
 * Every case a judging run must report passed, rendered and authored, visible or held out. A
 * manifest with authored files and no list in the log fails closed: a case that no run reports.
 */
export function expectedCases(ctx: Pick<RunContext, 'log' | 'manifest'>, which: 'visible' | 'heldOut'): PlannedCase[] {
  const plan = which === 'visible' ? ctx.manifest.testPlan : { files: ctx.manifest.heldOut.files };
  const files = authoredFiles(ctx.manifest).filter((f) => f.heldOut === (which === 'heldOut'));
  const listed = listedOf(ctx.log.events);
  const authored = files.flatMap((f): PlannedCase[] => {
    if (!listed) return [{ file: f.path, name: '(its cases were never listed)', mochaName: '(its cases were never listed)' }];
    return listed.cases.filter((c) => c.file === f.path).map((c) => ({ file: c.file, name: c.name, mochaName: c.name }));
  });
  return [...plannedCases(plan), ...authored];
}
