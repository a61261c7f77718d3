import type { TestCaseResult } from '../../core/schema/checks';
import type { ParsedReport } from './testReports';

/** The file the mocha witness takes its key from, and removes, before any code under test loads. */
export const WITNESS_KEY_VAR = 'TICKET_RUNNER_WITNESS_KEY';
/** The file the mocha witness appends its lines to. */
export const WITNESS_RECORD_VAR = 'TICKET_RUNNER_WITNESS_RECORD';

/**
 * One line of the witness, after the key and a space: a test a test file declared (`declared`:
 * its id and full title, mocha's space-joined one), how one run of its function ended (`ran`),
 * or a describe whose body mocha did not run when it was called (`tampered`).
 */
export type WitnessLine = { declared: number; title: string } | { ran: number; passed: boolean } | { tampered: string };

interface Witnessed {
  /** Each full title with the ids of its declarations. */
  declared: Map<string, number[]>;
  /** Each id with how the last run of its function ended. */
  ran: Map<number, boolean>;
  tampered: string[];
}

/** The lines that carry the key; any other line, or one cut short, was not written by the witness. */
function readWitness(record: string, key: string): Witnessed {
  const seen: Witnessed = { declared: new Map(), ran: new Map(), tampered: [] };
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
    if (typeof l['declared'] === 'number' && typeof l['title'] === 'string')
      seen.declared.set(l['title'], [...(seen.declared.get(l['title']) ?? []), l['declared']]);
    else if (typeof l['ran'] === 'number' && typeof l['passed'] === 'boolean') seen.ran.set(l['ran'], l['passed']);
    else if (typeof l['tampered'] === 'string') seen.tampered.push(l['tampered']);
  }
  return seen;
}

/** Why a test mocha reported passed did not pass as the witness saw it; undefined when it did. */
function notWitnessed(title: string, seen: Witnessed): string | undefined {
  if (seen.tampered.length) return `mocha did not run the body of describe "${seen.tampered[0]}" when a test file called it`;
  const ids = seen.declared.get(title);
  if (!ids) return "no describe and it of a test file declared it (mocha's qunit and exports interfaces are not judged)";
  if (ids.some((id) => !seen.ran.has(id))) return 'the function a test file gave it never ran';
  if (ids.some((id) => !seen.ran.get(id))) return 'its function threw or was rejected';
  return undefined;
}

/**
 * Mocha's report with each pass the witness did not see turned into a failure. The report, the
 * exit code and the runner that makes them are the code under test's to change in memory; the
 * witness's lines carry a key it never held. A title declared more than once passes only if
 * every declaration's function ran and passed, so a test declared again cannot stand in for one
 * that failed or was kept from running.
 */
export function judgedByWitness(report: ParsedReport, record: string, key: string): ParsedReport {
  const seen = readWitness(record, key);
  const judged = (c: TestCaseResult): TestCaseResult => {
    const why = c.status === 'passed' ? notWitnessed(c.name, seen) : undefined;
    return why ? { ...c, status: 'failed', message: `[ticket-runner] mocha reported this test passed, but ${why}` } : c;
  };
  return { ...report, cases: report.cases.map(judged) };
}
