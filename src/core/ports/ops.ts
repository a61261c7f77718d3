import type { TicketOp } from '../schema/ticket';

/** What an op may touch, from the manifest. Paths are workspace-relative with forward slashes. */
export interface OpScope {
  /** The only files an op may change. */
  write: readonly string[];
  read: readonly string[];
  /** The rendered tests: the oracle, never changed by an op. */
  tests: readonly string[];
}

/** One file an op changes: its whole text before and after. */
export interface OpEdit {
  path: string;
  before: string;
  after: string;
}

/**
 * The change an op failure proposes, when the adapter can derive one: more files in scope
 * (a rename whose references reach outside it), or the op itself corrected (a name that
 * does not exist, but a near one does). The pipeline turns it into a correction request.
 */
export type OpFix = { kind: 'scopeAddition'; paths: string[] } | { kind: 'opEdit'; op: TicketOp; summary: string };

export type OpResult =
  /** `edits` is empty when the op is already in place: applying an op twice changes nothing. */
  | { ok: true; edits: OpEdit[] }
  | {
      ok: false;
      /** Why the op cannot apply, in one sentence. */
      reason: string;
      /** What would make it apply, for the operator. */
      suggestion: string;
      /** Where the adapter found the problem, when it is one place. */
      at?: { file: string; line: number };
      proposal?: OpFix;
    };

/**
 * Typed pre-Coder ops: the adapter locates the target (Tree-sitter) and computes the edit
 * with the language service, checking the result before it answers. It never writes: the
 * pipeline writes the edits and records them, so every op write is in the run's log.
 */
export interface OpsPort {
  apply(op: TicketOp, scope: OpScope, signal: AbortSignal): Promise<OpResult>;
  /**
   * Builds what the first op needs (the language service's program) ahead of it, while the run
   * does other work. Optional: an op is the same with or without it, since each op catches up
   * with the disk first.
   */
  warm?(signal: AbortSignal): Promise<void>;
  dispose?(): void;
}
