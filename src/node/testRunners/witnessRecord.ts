import type { TestCaseResult } from '../../core/schema/checks';
import type { ParsedReport } from './testReports';

/** The file the witness's key is read from, and removed, before any code under test loads. */
export const WITNESS_KEY_VAR = 'TICKET_RUNNER_WITNESS_KEY';
/** The file the witness appends its lines to. */
export const WITNESS_RECORD_VAR = 'TICKET_RUNNER_WITNESS_RECORD';

/** The runners a witness watches (mochaWitness.ts, nodeTestWitness.ts). */
export type WitnessedRunner = 'mocha' | 'node:test';

/**
 * One line of the witness, after the key and a space: a test a test file declared (`declared`:
 * its id and full title, as its runner's report spells it), how one run of its function ended
 * (`ran`), or a describe whose body mocha did not run when it was called (`tampered`).
 */
export type WitnessLine = { declared: number | string; title: string } | { ran: number | string; passed: boolean } | { tampered: string };

interface Witnessed {
  /** Each full title with the ids of its declarations. */
  declared: Map<string, (number | string)[]>;
  /** Each id with how the last run of its function ended. */
  ran: Map<number | string, boolean>;
  tampered: string[];
}

/** How each runner's report spells what the witness judges. */
const RUNNERS = {
  mocha: {
    undeclared: "no describe and it of a test file declared it (mocha's qunit and exports interfaces are not judged)",
    nesting: undefined,
    fileResults: false,
  },
  // node:test's report names a test after the suites and tests around it; each of them is a test the witness saw made.
  // A test file that made no test is reported under its own name, passed when its process exited
  // with 0: no function of it ran to witness, and the plan's cases it held are missing (plannedCases.ts).
  'node:test': { undeclared: 'node:test made no such test in a test file', nesting: ' > ', fileResults: true },
} as const satisfies Record<WitnessedRunner, { undeclared: string; nesting: string | undefined; fileResults: boolean }>;

/** The lines that carry the key; any other line, or one cut short, was not written by the witness. */
function readWitness(record: string, key: string): Witnessed {
  const seen: Witnessed = { declared: new Map(), ran: new Map(), tampered: [] };
  const isId = (v: unknown): v is number | string => typeof v === 'number' || typeof v === 'string';
  for (const line of record.split('\n')) {
    if (!line.startsWith(`${key} `)) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.slice(key.length + 1));
    } catch {
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null) continue;
    const l = parsed as Partial<Record<string, unknown>>;
    if (isId(l['declared']) && typeof l['title'] === 'string')
      seen.declared.set(l['title'], [...(seen.declared.get(l['title']) ?? []), l['declared']]);
    else if (isId(l['ran']) && typeof l['passed'] === 'boolean') seen.ran.set(l['ran'], l['passed']);
    else if (typeof l['tampered'] === 'string') seen.tampered.push(l['tampered']);
  }
  return seen;
}

/** Why the declarations of one title did not all run and return; undefined when they did. */
function notRun(ids: readonly (number | string)[], seen: Witnessed): string | undefined {
  if (ids.some((id) => !seen.ran.has(id))) return 'never ran';
  if (ids.some((id) => !seen.ran.get(id))) return 'threw or was rejected';
  return undefined;
}

/** Why a test its runner reported passed did not pass as the witness saw it; undefined when it did. */
function notWitnessed(title: string, seen: Witnessed, runner: WitnessedRunner): string | undefined {
  if (seen.tampered.length) return `mocha did not run the body of describe "${seen.tampered[0]}" when a test file called it`;
  const ids = seen.declared.get(title);
  if (!ids) return RUNNERS[runner].undeclared;
  const own = notRun(ids, seen);
  if (own) return `the function a test file gave it ${own}`;
  // A suite around it whose body was kept from running may hide the cases it declares, behind others of the same names.
  const nesting = RUNNERS[runner].nesting;
  if (nesting === undefined) return undefined;
  for (const [around, aroundIds] of seen.declared) {
    const why = title.startsWith(`${around}${nesting}`) ? notRun(aroundIds, seen) : undefined;
    if (why) return `the function of "${around}", around it, ${why}`;
  }
  return undefined;
}

/**
 * The runner's report with each pass the witness did not see turned into a failure. The report,
 * the exit code and the runner that makes them are the code under test's to change in memory;
 * the witness's lines carry a key it never held. A title declared more than once passes only if
 * every declaration's function ran and passed, so a test declared again cannot stand in for one
 * that failed or was kept from running.
 */
export function judgedByWitness(report: ParsedReport, record: string, key: string, runner: WitnessedRunner): ParsedReport {
  const seen = readWitness(record, key);
  const judged = (c: TestCaseResult): TestCaseResult => {
    const fileResult = RUNNERS[runner].fileResults && c.file !== undefined && c.name === c.file;
    const why = c.status === 'passed' && !fileResult ? notWitnessed(c.name, seen, runner) : undefined;
    return why ? { ...c, status: 'failed', message: `[ticket-runner] ${runner} reported this test passed, but ${why}` } : c;
  };
  return { ...report, cases: report.cases.map(judged) };
}
