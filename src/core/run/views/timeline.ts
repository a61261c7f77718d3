import { z } from 'zod';
import type { RunState } from '../reducer';
import { describeEvent, LINE_STATUSES } from './eventLines';
import type { RunEvent } from '../../schema/events';
import { durationWords } from './time';
import { capitalized, roleWords } from './words';

/** One line of the timeline: a fact of the log, typed; `label` is for display only. */
export const TimelineEntry = z.object({
  seq: z.number().int(),
  ts: z.string(),
  type: z.string(),
  attempt: z.number().int().optional(),
  status: z.enum(LINE_STATUSES),
  label: z.string(),
  /** A model call's row: its index in the state's `modelCalls`, for the control that opens its prompt and answer. */
  call: z.number().int().nonnegative().optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/**
 * Host-side projections for the webview, pure functions of the log: the timeline, the
 * attempt file contents to diff, and where each quoted piece of evidence sits.
 */

/** A timeline row: the event's words (./eventLines.ts), its status and attempt. */
export function timelineEntry(e: RunEvent): TimelineEntry | null {
  // The run view decides corrections with a click: their ids and the gates' setting names say nothing there.
  const line = describeEvent(e, { requestIds: false, gateNames: false, modelNames: false });
  if (!line) return null;
  return {
    seq: e.seq,
    ts: e.ts,
    type: e.type,
    status: line.status,
    label: capitalized(line.text),
    ...(line.attempt ? { attempt: line.attempt } : {}),
  };
}

/**
 * The webview's timeline: the events' rows, and a row per model call (which the CLI's progress
 * leaves out) carrying the call's index, so the operator can open what the model read and said.
 */
export function timelineOf(events: readonly RunEvent[]): TimelineEntry[] {
  let calls = 0;
  return events
    .map((e) => (e.type === 'model.called' ? modelCallEntry(e, calls++) : timelineEntry(e)))
    .filter((t): t is TimelineEntry => t !== null);
}

function modelCallEntry(e: Extract<RunEvent, { type: 'model.called' }>, call: number): TimelineEntry {
  const what = e.ok ? `${e.inputTokens + e.outputTokens} tokens, ${durationWords(e.latencyMs)}` : `no answer: ${e.error ?? 'failed'}`;
  return {
    seq: e.seq,
    ts: e.ts,
    type: e.type,
    status: e.ok ? 'info' : 'warning',
    label: `${roleWords(e.role)} model call: ${what}`,
    attempt: e.attempt,
    call,
  };
}

/** The blob hashes the webview needs for its diffs: each attempt's files and what they replaced. */
export function attemptBlobHashes(state: RunState): string[] {
  const hashes = new Set<string>();
  for (const a of state.attempts) {
    for (const f of a.files) hashes.add(f.hash);
    for (const w of a.written) if (w.before) hashes.add(w.before);
  }
  return [...hashes];
}

/** 1-based line of the first occurrence of `quote` in `text` (its first line, when it spans lines). */
export function lineOf(text: string, quote: string): number | null {
  let at = text.indexOf(quote);
  if (at < 0) {
    const first = quote.split('\n')[0]?.trim();
    if (!first) return null;
    at = text.indexOf(first);
    if (at < 0) return null;
  }
  return text.slice(0, at).split('\n').length;
}

/**
 * Where each diagnosis quote is, in the file it names: searched in that attempt's version of
 * the file when the run stored one, else in the workspace file as it is now.
 */
export async function quoteLocations(
  state: RunState,
  blob: (hash: string) => Promise<string | null>,
  readWorkspace: (path: string) => Promise<string | null>,
): Promise<{ attempt: number; index: number; path: string; line: number }[]> {
  const out: { attempt: number; index: number; path: string; line: number }[] = [];
  for (const a of state.attempts) {
    if (!a.diagnosis) continue;
    for (const [index, ev] of a.diagnosis.evidence.entries()) {
      const path = ev.file ?? (ev.source === 'testFile' && state.testFiles.length === 1 ? state.testFiles[0]!.path : undefined);
      if (!path) continue;
      const stored = a.files.find((f) => f.path === path) ?? state.testFiles.find((f) => f.path === path);
      const text = (stored ? await blob(stored.hash) : null) ?? (await readWorkspace(path));
      const line = text === null ? null : lineOf(text, ev.quote);
      out.push({ attempt: a.n, index, path, line: line ?? 1 });
    }
  }
  return out;
}
