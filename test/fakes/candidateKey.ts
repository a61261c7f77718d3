import { createHash } from 'node:crypto';

/**
 * What a recorded answer is looked up by: the port's operation, its arguments (paths, content,
 * never the signal or a timeout), and the candidate, the workspace's files that differ from the
 * fixture as it was copied. A checker's answer depends on nothing else, so the same question on
 * the same candidate gets the answer the real tool gave, whichever run asks it. The recorder
 * (scripts/recordFakes.ts) and the fakes compute it here, the one place.
 */

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A changed file: its content's hash, or null when the candidate deleted it. */
export type Candidate = ReadonlyMap<string, string | null>;

export function candidateKey(op: string, args: unknown, candidate: Candidate): string {
  const files = [...candidate.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, content]) => [path, content === null ? null : sha256(content)]);
  return sha256(JSON.stringify({ op, args, files }));
}

/** The files of `now` that differ from `start`, each with its content now (null: deleted). */
export function candidateOf(start: ReadonlyMap<string, string>, now: ReadonlyMap<string, string | null>): Map<string, string | null> {
  const changed = new Map<string, string | null>();
  for (const [path, content] of now) if ((start.get(path) ?? null) !== content) changed.set(path, content);
  return changed;
}
