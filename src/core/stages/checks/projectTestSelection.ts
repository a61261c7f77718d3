import type { ProjectTestSelection } from '../../schema/gates';
import type { RunContext } from '../common/context';
import { ImportReach } from './reach';
import { runnerSetupFiles } from './runnerSetup';

/**
 * Which of the project's test files the projectTests gate runs, and so the baseline before the
 * run's first write: by default those that reach the change through imports, as the attempts'
 * checks choose theirs. A whole suite of minutes then costs a ticket seconds. The whole suite
 * runs when the project asks for it, and whenever the reach of a test cannot be worked out: a
 * file on its way loads modules by a computed name, the walk gave up before its end, or a setup
 * file the runner loads before every test reaches the change (or cannot be read). A test left
 * out wrongly would let a run that broke it pass, so every doubt runs everything.
 */
export async function selectProjectTests(
  ctx: Pick<RunContext, 'deps'>,
  suite: readonly string[],
  towards: readonly string[],
): Promise<{ files: string[]; selection: ProjectTestSelection }> {
  const whole = (selection: ProjectTestSelection) => ({ files: [...suite], selection });
  const unknown = (why: string) => whole({ by: 'fallback', why: `which tests reach the change could not be worked out (${why})` });
  if (ctx.deps.gates?.projectTests === 'all') return whole({ by: 'setting' });
  const reach = new ImportReach(ctx.deps.workspace, new Set(towards), 'run');
  const setup = await runnerSetupFiles(ctx.deps.workspace);
  if ('unknown' in setup) return unknown(setup.unknown);
  for (const { config, file } of setup.files) {
    const r = await reach.reaches(file);
    if (r === true) return whole({ by: 'fallback', why: `${config} loads ${file} before every test file, and it reaches the change` });
    if (r !== false) return unknown(r.unknown);
  }
  const files: string[] = [];
  for (const t of suite) {
    const r = await reach.reaches(t);
    if (r === true) files.push(t);
    else if (r !== false) return unknown(r.unknown);
  }
  return { files, selection: { by: 'reach', suite: suite.length } };
}

/** Which files ran, in the user's words: "2 of 340 test files reach the change", "the whole suite (340 test files), as the project asks". */
export function selectionWords(selection: ProjectTestSelection | undefined, files: readonly string[]): string {
  const plural = (n: number) => `${n} test file${n === 1 ? '' : 's'}`;
  if (!selection) return plural(files.length);
  switch (selection.by) {
    case 'reach':
      return `${files.length} of ${plural(selection.suite)} ${files.length === 1 ? 'reaches' : 'reach'} the change`;
    case 'setting':
      return `the whole suite (${plural(files.length)}), as the project asks`;
    case 'fallback':
      return `the whole suite (${plural(files.length)}): ${selection.why}`;
  }
}
