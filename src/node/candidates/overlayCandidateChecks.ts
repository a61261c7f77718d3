import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CancelledError } from '../../core/errors';
import type { CandidateCheckPort, CandidateFile, CandidateOverlay } from '../../core/ports/candidates';
import type { DiagnosticsPort, LintPort, ParserPort, TestRunnerPort } from '../../core/ports/checks';
import { FsWorkspace } from '../workspace/fsWorkspace';

/** The checks bound to one overlay root, built by the wiring (src/node/wire.ts). */
export interface OverlayChecks {
  tests: TestRunnerPort;
  parser?: ParserPort;
  diagnostics?: DiagnosticsPort;
  lint?: LintPort;
}

export interface OverlayCandidateChecksOptions {
  /** The workspace to copy. */
  root: string;
  makeChecks: (overlayRoot: string) => OverlayChecks;
}

/**
 * Not copied: dependencies are linked instead (they are large and read-only to a run),
 * and version control and the run store are no business of a candidate's checks.
 */
const SKIPPED = new Set(['node_modules', '.git', '.ticket-runner']);

/**
 * CandidateCheckPort over a scratch copy of the workspace in the temp folder: the tree
 * without node_modules (linked) and the run store, with the candidate files written over
 * it. The copy keeps the workspace's folder name, so configs that name it still resolve.
 */
export class OverlayCandidateChecks implements CandidateCheckPort {
  private readonly root: string;

  constructor(private readonly options: OverlayCandidateChecksOptions) {
    this.root = path.resolve(options.root);
  }

  async open(files: CandidateFile[], signal: AbortSignal): Promise<CandidateOverlay> {
    if (signal.aborted) throw new CancelledError('candidate check cancelled');
    const base = await mkdtemp(path.join(tmpdir(), 'ticket-runner-candidate-'));
    const dir = path.join(base, path.basename(this.root));
    let checks: OverlayChecks | undefined;
    const dispose = async () => {
      checks?.diagnostics?.dispose?.();
      checks?.lint?.dispose?.();
      checks?.tests.dispose?.();
      await rm(base, { recursive: true, force: true });
    };
    try {
      await cp(this.root, dir, { recursive: true, filter: (src) => !SKIPPED.has(path.basename(src)) });
      const modules = path.join(this.root, 'node_modules');
      if (existsSync(modules)) await symlink(modules, path.join(dir, 'node_modules'), 'dir');
      // The same containment checks as the real workspace: a candidate path cannot lead out of the copy.
      const workspace = new FsWorkspace(dir);
      for (const f of files) await workspace.writeFile(f.path, f.content);
      if (signal.aborted) throw new CancelledError('candidate check cancelled');
      checks = this.options.makeChecks(dir);
      return { root: dir, workspace, ...checks, dispose };
    } catch (err) {
      await dispose();
      throw err;
    }
  }
}
