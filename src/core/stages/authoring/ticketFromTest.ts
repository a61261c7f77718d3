import { UserInputError } from '../../errors';
import type { WorkspacePort } from '../../ports/workspace';
import { isCodePath, isTestPath, normalizeRelPath } from '../../schema/paths';
import { nextTicketId } from '../../ticket/ticketIds';
import { ticketText } from '../../ticket/ticketTemplate';
import { importedFiles } from './testImports';
import { outlineTest, type TestOutline } from './testOutline';

export interface TestTicketInput {
  /** The test file, workspace-relative, and its text as the editor holds it. */
  testPath: string;
  text: string;
  /** The ids of the workspace's tickets: the draft takes the next free one. */
  existingTicketIds: readonly string[];
}

/** A ticket drafted from a test file: where it goes, its text, and what it holds, for the host's notice. */
export interface TestTicket {
  id: string;
  /** `.tickets/<ID>.ticket.yaml`. */
  path: string;
  text: string;
  criteria: number;
  /** The files the Coder may change: what the test imports of the workspace's code. */
  write: string[];
  /** The files of `write` that do not exist yet: the Coder creates them. */
  created: string[];
}

/** The id a draft takes when no ticket of the workspace is numbered (so none has this one). */
const FIRST_ID = 'TICKET-1';

/** The YAML's opening comment: where the ticket came from, and that nothing has run. */
const comment = (testPath: string) =>
  ` Drafted from ${testPath}, which judges it: every case in it must pass, and the run never changes it.\n` +
  ' Read the scope and the criteria, then run it with Ticket Runner: Run Ticket.';

/**
 * Drafts a ticket that takes a test file the user wrote as its oracle, with no model: the test
 * is the only test plan (`testPlan.authored`), its cases are the criteria, and the workspace code
 * it imports by relative path is the scope. A module the test imports that is not written yet is
 * in the scope too, so a test written first drafts the ticket that writes the module. What the
 * test imports from test folders (helpers, fixtures) and data files is read-only: code the
 * Coder may change must not be able to change what judges it.
 */
export async function ticketFromTest(workspace: Pick<WorkspacePort, 'exists'>, input: TestTicketInput): Promise<TestTicket> {
  const testPath = normalizeRelPath(input.testPath);
  if (!isTestPath(testPath) || !isCodePath(testPath))
    throw new UserInputError(
      `${testPath} is not named as a test: keep it under test/, tests/ or __tests__/, or name it *.test.* or *.spec.*, as the runner finds tests`,
    );
  const outline = outlineTest(input.text);
  if (!outline.cases.length && !outline.unnamedCases)
    throw new UserInputError(`${testPath} has no test in it: write a test(…) or it(…) case first, then draft its ticket`);
  const write: string[] = [];
  const read: string[] = [];
  const created: string[] = [];
  for (const file of await importedFiles(workspace, testPath, outline.imports)) {
    if (file.path === testPath || write.includes(file.path) || read.includes(file.path)) continue;
    if (isTestPath(file.path) || !isCodePath(file.path)) {
      // A helper or fixture that does not exist is no scope at all: the test cannot load without it.
      if (file.exists) read.push(file.path);
      continue;
    }
    write.push(file.path);
    if (!file.exists) created.push(file.path);
  }
  if (!write.length)
    throw new UserInputError(
      `${testPath} imports no code of the workspace by a relative path, so there is no file for the ticket to change: import the module the test checks, then draft again`,
    );
  const id = nextTicketId(input.existingTicketIds) ?? FIRST_ID;
  const acceptance = criteriaOf(outline, testPath);
  const ticket = {
    id,
    title: outline.topSuites[0] ?? `Make ${testPath.slice(testPath.lastIndexOf('/') + 1)} pass`,
    description: descriptionOf(testPath, created),
    scope: { write, ...(read.length ? { read } : {}) },
    acceptance,
    testPlan: { authored: [testPath] },
  };
  const text = ticketText(ticket, 'yaml', comment(testPath));
  return { id, path: `.tickets/${id}.ticket.yaml`, text, criteria: acceptance.length, write, created };
}

/** One criterion per named case, with the suites it is in below the one the title names; one for the whole file when no case has a name. */
function criteriaOf(outline: TestOutline, testPath: string): { id: string; text: string }[] {
  const titled = outline.topSuites[0];
  const texts = outline.cases.map(({ name, suites }) => [...(suites[0] === titled ? suites.slice(1) : suites), name].join(' > '));
  if (!texts.length || outline.unnamedCases) texts.push(`every case in ${testPath} passes`);
  return texts.map((text, i) => ({ id: `AC${i + 1}`, text }));
}

function descriptionOf(testPath: string, created: readonly string[]): string {
  const made = created.length
    ? ` ${created.join(', ')} ${created.length === 1 ? 'does' : 'do'} not exist yet: the change creates ${created.length === 1 ? 'it' : 'them'}.`
    : '';
  return `Make every case in ${testPath} pass, changing only the code it tests. The test is the oracle: it stays as it is.${made}`;
}
