import { UserInputError } from '../../errors';
import type { TestCaseResult } from '../../schema/checks';
import type { RunEvent } from '../../schema/events';
import type { Manifest } from '../../schema/manifest';
import { authoredTests } from '../../schema/testPlan';
import { DEFAULT_TEST_TIMEOUT_MS, type RunContext } from '../common/context';
import { plannedCases, reportedFile, type PlannedCase } from './plannedCases';

/**
 * Tests the author wrote, as the oracle. Their cases are not in the ticket, so the run asks the
 * runner once, before the Coder writes anything, and records the list (`authored.listed`) with
 * each file's bytes; from then on the files are pinned as rendered tests are, and every listed
 * case must be reported passed. A case the Coder's code skips, renames or makes vanish is then a
 * failure with its name, whatever the runner's exit code says.
 */

type Listed = Extract<RunEvent, { type: 'authored.listed' }>;

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
 * Lists the authored files' cases on the project as it is and pins the files. A resumed run
 * pins the bytes its log recorded, not what is on disk now: the file may have been changed
 * while no run watched it.
 */
export async function listAuthoredCases(ctx: RunContext): Promise<void> {
  const files = authoredFiles(ctx.manifest);
  if (!files.length) return;
  const { deps, log } = ctx;
  const recorded = listedOf(log.events);
  if (recorded) {
    for (const f of recorded.files) ctx.oracle?.pin(f.path, await log.getBlob(f.hash));
    return;
  }
  const pinned: Listed['files'] = [];
  for (const f of files) {
    const content = await deps.workspace.readFile(f.path);
    if (content === null)
      throw new UserInputError(`${f.path}, a test file the ticket names in testPlan.authored, is gone: put it back, or fix the path`);
    pinned.push({ path: f.path, hash: await log.putBlob(content), heldOut: f.heldOut });
    ctx.oracle?.pin(f.path, content);
  }
  const paths = files.map((f) => f.path);
  const ran = await deps.tests.run(
    { framework: ctx.manifest.runner.framework, files: paths, timeoutMs: deps.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS },
    ctx.signal,
  );
  const cases = listedCases(ran.cases, paths);
  const empty = paths.filter((p) => !cases.some((c) => c.file === p));
  if (empty.length) {
    throw new UserInputError(
      `the runner reported no case in ${empty.join(', ')} (testPlan.authored) on the project as it is: make the file load and declare its cases (an import of code the ticket adds must not fail before it exists), then run again`,
    );
  }
  await log.emit({ type: 'authored.listed', files: pinned, cases });
}

/**
 * The reported cases, each under the authored file it came from, once. A report that names no
 * file belongs to the only authored file, when there is one; otherwise it cannot be placed.
 */
export function listedCases(reported: readonly TestCaseResult[], paths: readonly string[]): { file: string; name: string }[] {
  const out: { file: string; name: string }[] = [];
  for (const c of reported) {
    const file = c.file === undefined ? (paths.length === 1 ? paths[0] : undefined) : reportedFile(c.file);
    if (file === undefined || !paths.includes(file) || out.some((o) => o.file === file && o.name === c.name)) continue;
    out.push({ file, name: c.name });
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
