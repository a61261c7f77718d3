import { UserInputError } from '../errors';
import { RunEvent } from '../schema/events';
import type { LoadedLog, TornLine } from '../ports/runStore';

/** A log with a line that is not an event: its message names the file and the line. */
export class CorruptLogError extends UserInputError {
  override readonly name = 'CorruptLogError';
}

/** One event as one JSON line. */
export function encodeEvent(event: RunEvent): string {
  return JSON.stringify(event) + '\n';
}

/**
 * Decodes a log. Every whole event is validated. A last line that is not a whole event
 * (a crash mid-write) is reported as torn, and the run loads without it; a bad line in
 * the middle is corruption, which nothing append-only can produce, so it is an error.
 */
export function decodeLog(text: string, source: string): LoadedLog {
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n') || text === '';
  if (lines[lines.length - 1] === '') lines.pop();
  const events: RunEvent[] = [];
  let torn: TornLine | null = null;
  lines.forEach((line, i) => {
    const isLast = i === lines.length - 1;
    let problem: string;
    let notJson = false;
    try {
      const parsed = RunEvent.safeParse(JSON.parse(line));
      if (parsed.success) {
        events.push(parsed.data);
        return;
      }
      problem = parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ');
    } catch (err) {
      notJson = true;
      problem = err instanceof Error ? err.message : String(err);
    }
    // A crash mid-write leaves a last line that is cut short: not JSON, or no newline.
    if (isLast && (notJson || !endsClean)) {
      torn = { line: i + 1, text: line.length > 200 ? line.slice(0, 200) + '…' : line, error: problem };
      return;
    }
    throw new CorruptLogError(`${source}: line ${i + 1} is not a valid event (${problem}); the log is damaged, so the run cannot be read`);
  });
  const misplaced = outOfOrder(events);
  if (misplaced)
    throw new CorruptLogError(`${source}: line ${misplaced.line} ${misplaced.why}; the log is damaged, so the run cannot be read`);
  return { events, torn };
}

/**
 * What only an edit can make of an append-only log: the writer numbers its events from 0, one
 * by one, for one run, and a run that has finished finishes again only after it was reopened as
 * the commands reopen one: `resume` a cancelled run (or one stopped on a changed test runner), a decision on the correction request a run
 * waits for (and, once accepted, its resume). Without the OS sandbox the code under test can
 * append to the log, and a process it leaves behind can do so after the run: a resume and a
 * second `run.finished` after the real one would otherwise be the run's outcome in every view.
 * A forger who also writes the decision an operator would make is not stopped here; the
 * sandbox, where `.ticket-runner/` is read-only, is what stops that.
 */
/** How `outOfOrder` marks a run stopped on a changed test runner: resumed once the runner is reinstalled. */
const TOOLS_CHANGED = 'failed, its test runner changed';

function outOfOrder(events: readonly RunEvent[]): { line: number; why: string } | undefined {
  /** The outcome the run last finished with, until something reopened it. */
  let ended: string | undefined;
  let decided = false;
  for (const [i, e] of events.entries()) {
    const at = (why: string) => ({ line: i + 1, why });
    if (e.seq !== i) return at(`is event ${e.seq} of the run where event ${i} belongs`);
    if (e.runId !== events[0]!.runId) return at(`belongs to run ${e.runId}, not ${events[0]!.runId}`);
    if (e.type === 'correction.accepted' || e.type === 'correction.rejected') {
      if (ended !== undefined && ended !== 'needsOperator') return at(`decides a correction request of a run that ended ${ended}`);
      if (e.type === 'correction.rejected') ended = undefined;
      else decided = true;
    } else if (e.type === 'run.resumed') {
      if (ended === 'needsOperator' && !decided)
        return at('resumes a run that waits for a decision on its correction request, with no decision');
      if (ended !== undefined && ended !== 'needsOperator' && ended !== 'cancelled' && ended !== TOOLS_CHANGED)
        return at(`resumes a run that ended ${ended}; only a cancelled run, or one stopped on a changed test runner, is resumed`);
      ended = undefined;
      decided = false;
    } else if (e.type === 'run.finished') {
      if (ended !== undefined) return at('finishes a run that had finished already, with no resume or decision between');
      ended = e.reason.kind === 'judgingToolsChanged' ? TOOLS_CHANGED : e.outcome;
      decided = false;
    }
  }
  return undefined;
}

/**
 * A log that a command will append to (resume, resolve, rollback). A torn last line is
 * refused: the next event would be glued onto it and corrupt the log for good, and the
 * event it held (a write, say) is lost, so what the run did is no longer known.
 */
export function wholeLog(loaded: LoadedLog, source: string): LoadedLog {
  if (loaded.torn) {
    throw new CorruptLogError(
      `${source}: line ${loaded.torn.line} is cut short (a crash while it was written); remove that line to continue the run from the events before it`,
    );
  }
  return loaded;
}
