import { performance } from 'node:perf_hooks';
import type { RunContext } from '../src/core/stages/common/context';
import { measureBaseline } from '../src/core/stages/checks/findingsBaseline';
import type { Manifest } from '../src/core/schema/manifest';
import { createLanguageServiceDiagnostics } from '../src/node/diagnostics/languageService';
import { TscTypeCheck } from '../src/node/gates/tscTypeCheck';
import { FsWorkspace } from '../src/node/workspace/fsWorkspace';
import { modulePath, type GeneratedRepo } from './genRepo';

export interface BaselineCost {
  lines: number;
  /** One run of the type-check gate on the whole repo: the unit the baseline's cost is counted in. */
  typecheckMs: number;
  /**
   * The language service building its program for the repo: every run pays it once, on the
   * baseline or else on its first check (or on resolving the ticket's refs), so it is not the
   * baseline's cost. Measured apart so the figure says so.
   */
  languageServiceStartMs: number;
  /** The run's baseline with the service started: the gate's project-wide check plus the scope's and its importers' diagnostics. */
  baselineMs: number;
  /** baseline ÷ one full type-check, measured in this run: what the baseline adds, in full type-checks. */
  ratio: number;
}

/**
 * What the diagnostics baseline adds to a run on a large repo: `measureBaseline` exactly as a
 * run calls it (the type-check gate enabled, one file in scope), against one run of that gate
 * alone. The language service part is the first check a run makes anyway, so it is counted
 * here as cost although every later check reuses it warm.
 */
export async function measureBaselineCost(repo: GeneratedRepo): Promise<BaselineCost> {
  const signal = new AbortController().signal;
  const typecheck = new TscTypeCheck({ root: repo.root, nodePath: process.execPath });
  const t0 = performance.now();
  const gate = await typecheck.check(signal);
  const typecheckMs = performance.now() - t0;
  if (gate.status !== 'passed') throw new Error(`the generated repo does not type-check (${gate.status}): ${gate.detail}`);

  const diagnostics = createLanguageServiceDiagnostics(repo.root);
  const scope = modulePath(Math.floor(repo.modules / 2));
  const manifest = { scope: { write: [{ path: scope, exists: true }], read: [] } } as unknown as Manifest;
  const events: unknown[] = [];
  const ctx = {
    deps: { workspace: new FsWorkspace(repo.root), diagnostics, gates: { enabled: ['typecheck'], typecheck } },
    manifest,
    signal,
    log: { emit: (e: unknown) => Promise.resolve(void events.push(e)) },
  } as unknown as RunContext;
  try {
    const t1 = performance.now();
    await diagnostics.resolveSymbol(scope, 'NotASymbol');
    const languageServiceStartMs = performance.now() - t1;
    const t2 = performance.now();
    await measureBaseline(ctx);
    const baselineMs = performance.now() - t2;
    return { lines: repo.lines, typecheckMs, languageServiceStartMs, baselineMs, ratio: baselineMs / typecheckMs };
  } finally {
    diagnostics.dispose();
  }
}
