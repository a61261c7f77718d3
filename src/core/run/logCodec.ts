import { RunEvent } from '../schema/events';
import type { LoadedLog, TornLine } from '../ports/runStore';

export class CorruptLogError extends Error {
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
    throw new CorruptLogError(`${source}: line ${i + 1} is not a valid event (${problem})`);
  });
  return { events, torn };
}
