import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CancelledError } from '../../core/errors';
import type { CandidateCheckPort, CandidateFile, CandidateOverlay } from '../../core/ports/candidates';
import type { DiagnosticsPort, LintPort, ParserPort, TestRunnerPort } from '../../core/ports/checks';
import { FsWorkspace } from '../workspace/fsWorkspace';
import { KeptCopy } from '../workspace/keptCopy';
import { copyTree, ensureLink } from '../workspace/scratchTree';

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
  /**
   * Keep one copy across calls (the default) and bring it back to the workspace before and after
   * each; false copies the whole workspace on every call (the bench's baseline).
   */
  reuse?: boolean;
}

/**
 * CandidateCheckPort over a scratch copy of the workspace in the temp folder: the tree
 * without node_modules (linked) and the run store, with the candidate files written over
 * it. The copy keeps the workspace's folder name, so configs that name it still resolve.
 *
 * The copy is made once per run and kept (keptCopy.ts): each call first brings it back to the
 * workspace as it stands (the files the run wrote since, and anything a previous call left),
 * then writes the candidate's files; when the call is done it is brought back again. Both steps
 * copy only what differs, so a call costs a walk of the tree, not a copy of it. The real
 * workspace is only ever read. A copy that cannot be brought back is dropped, and the next call
 * copies afresh.
 */
export class OverlayCandidateChecks implements CandidateCheckPort {
  private readonly root: string;
  private cache: KeptCopy | undefined;
  /** A call in flight holds the cache; a second one at the same time gets a copy of its own. */
  private busy = false;

  constructor(private readonly options: OverlayCandidateChecksOptions) {
    this.root = path.resolve(options.root);
  }

  async open(files: CandidateFile[], signal: AbortSignal): Promise<CandidateOverlay> {
    if (signal.aborted) throw new CancelledError('candidate check cancelled');
    if (this.options.reuse === false || this.busy) return this.openFresh(files, signal);
    this.busy = true;
    let checks: OverlayChecks | undefined;
    const release = async (restore: boolean) => {
      disposeChecks(checks);
      try {
        if (restore && this.cache) await this.cache.sync({ walkSource: false });
      } catch {
        await this.drop();
      } finally {
        this.busy = false;
      }
    };
    try {
      const cache = this.cache ?? (this.cache = await this.create());
      await cache.sync({ walkSource: true });
      await writeCandidate(cache.dir, files);
      if (signal.aborted) throw new CancelledError('candidate check cancelled');
      checks = this.options.makeChecks(cache.dir);
      return { root: cache.dir, workspace: new FsWorkspace(cache.dir), ...checks, dispose: () => release(true) };
    } catch (err) {
      await release(true);
      throw err;
    }
  }

  /** Removes the kept copy: the run is over. */
  async dispose(): Promise<void> {
    await this.drop();
  }

  private async create(): Promise<KeptCopy> {
    const copy = new KeptCopy(this.root, {
      prefix: 'ticket-runner-candidate-',
      link: async (dir) => (await ensureLink(this.root, dir, 'node_modules'), []),
    });
    try {
      await copy.sync();
      return copy;
    } catch (err) {
      await copy.dispose();
      throw err;
    }
  }

  private async drop(): Promise<void> {
    const cache = this.cache;
    this.cache = undefined;
    await cache?.dispose();
  }

  /** A copy for one call, removed after it. */
  private async openFresh(files: CandidateFile[], signal: AbortSignal): Promise<CandidateOverlay> {
    const base = await mkdtemp(path.join(tmpdir(), 'ticket-runner-candidate-'));
    const dir = path.join(base, path.basename(this.root));
    let checks: OverlayChecks | undefined;
    const dispose = async () => {
      disposeChecks(checks);
      await rm(base, { recursive: true, force: true });
    };
    try {
      await copyTree(this.root, dir);
      await ensureLink(this.root, dir, 'node_modules');
      await writeCandidate(dir, files);
      if (signal.aborted) throw new CancelledError('candidate check cancelled');
      checks = this.options.makeChecks(dir);
      return { root: dir, workspace: new FsWorkspace(dir), ...checks, dispose };
    } catch (err) {
      await dispose();
      throw err;
    }
  }
}

/** The same containment checks as the real workspace: a candidate path cannot lead out of the copy. */
async function writeCandidate(dir: string, files: CandidateFile[]): Promise<void> {
  const workspace = new FsWorkspace(dir);
  for (const f of files) await workspace.writeFile(f.path, f.content);
}

function disposeChecks(checks: OverlayChecks | undefined): void {
  checks?.diagnostics?.dispose?.();
  checks?.lint?.dispose?.();
  // Its runner is a ProcessTestRunner over the candidate copy, whose dispose is synchronous.
  void checks?.tests.dispose?.();
}
