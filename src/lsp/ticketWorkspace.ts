import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { DiagnosticsPort } from '../core/ports/checks';
import type { WorkspacePort } from '../core/ports/workspace';
import { wireTicketChecks } from '../node/wire';
import { withProbeCache } from './probeCache';

/** Folders no ticket names a file in: dependencies, outputs, the run records. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'out', 'coverage', '.ticket-runner', '.vscode-test']);
/** A workspace this big is not listed whole: completion offers the first files found. */
const MAX_FILES = 5000;
/** How long a listing of the workspace's files is reused: typing in a ticket does not create files. */
const FILES_TTL_MS = 3000;

/**
 * The workspace a ticket belongs to (the folder holding its `.tickets/`), with the read-only
 * checks `ticket-runner validate` uses, made once per workspace and kept while the server runs.
 */
export class TicketWorkspace {
  readonly checks: { workspace: WorkspacePort; diagnostics?: DiagnosticsPort };
  private files: { at: number; list: Promise<string[]> } | undefined;

  constructor(readonly root: string) {
    const { workspace, diagnostics } = wireTicketChecks(root);
    this.checks = { workspace, diagnostics: diagnostics && withProbeCache(diagnostics, () => this.fingerprint()) };
  }

  /**
   * The sizes and modification times of the workspace's files (outside node_modules and the
   * dot folders), listed afresh: what a type probe depends on.
   */
  async fingerprint(): Promise<string> {
    const files = await listFiles(this.root);
    const stats = await Promise.all(
      files.map((f) =>
        stat(path.join(this.root, f)).then(
          (s) => `${f}:${s.size}:${s.mtimeMs}`,
          () => `${f}:gone`,
        ),
      ),
    );
    return stats.join('\n');
  }

  /** The ticket's path relative to the workspace, with forward slashes. */
  relative(file: string): string {
    return path.relative(this.root, file).split(path.sep).join('/');
  }

  /** The workspace's files, relative, sorted (cached for a few seconds). */
  listFiles(): Promise<string[]> {
    if (!this.files || Date.now() - this.files.at > FILES_TTL_MS) this.files = { at: Date.now(), list: listFiles(this.root) };
    return this.files.list;
  }

  dispose(): void {
    this.checks.diagnostics?.dispose?.();
  }
}

async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name) && !e.name.startsWith('.')) await walk(rel);
      } else if (e.isFile()) out.push(rel);
    }
  };
  await walk('');
  return out.sort();
}

/** What completion and quick fixes read of a ticket's workspace (a test gives its own). */
export type WorkspaceFacts = Pick<TicketWorkspace, 'checks' | 'listFiles'>;

/** The workspace of a ticket file: the folder its `.tickets/` sits in. */
export function workspaceRootOf(ticketFile: string): string {
  return path.dirname(path.dirname(ticketFile));
}
