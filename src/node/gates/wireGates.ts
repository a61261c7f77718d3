import * as path from 'node:path';
import type { GateDeps, GateSettings } from '../../core/stages/common/gateConfig';
import type { CoveragePort } from '../../core/ports/gates';
import type { ProcessJail } from '../sandbox/processJail';
import { ShellBuild } from './buildCommand';
import { ProjectCoverageRunner } from './coverageRunner';
import { TscTypeCheck } from './tscTypeCheck';
import type { JudgingTools } from '../testRunners/judgingTools';
import { TreeCoverage, type TreeCommands } from '../testRunners/treeTestRunner';

export interface GateWiring {
  root: string;
  /** Ticket Runner's own folder: its typescript is the type-check's fallback. */
  pkgRoot: string;
  /** dist/ beside the extension: the node:test reporter the coverage run uses too. */
  dist: string;
  nodePath: string;
  /** The run's sandbox: every gate that starts a process runs in it. */
  jail: ProcessJail;
  /** The run's record of the tools that judge the tests: the coverage runs are looked at with it too. */
  judgingTools?: JudgingTools;
  /** Where the test commands run: the run's copy of the workspace and the jail over it (testTree.ts); the workspace itself without. */
  tests?: { commands: TreeCommands; jail: ProcessJail };
}

/** The gates' ports over the workspace on disk, with the settings the caller chose. */
export function nodeGates(settings: GateSettings, w: GateWiring): GateDeps {
  return {
    ...settings,
    typecheck: new TscTypeCheck({
      root: w.root,
      fallbackDir: w.pkgRoot,
      nodePath: w.nodePath,
      jail: w.jail,
      serverScript: path.join(w.dist, 'tscServer.js'),
    }),
    build: new ShellBuild(w.root, w.jail),
    coverage: coverage(w),
  };
}

/** The coverage gate's runner, in the test commands' copy of the workspace when the run has one. */
function coverage(w: GateWiring): CoveragePort {
  const options = {
    nodeTestReporter: path.join(w.dist, 'nodeTestReporter.mjs'),
    fallbackDir: w.pkgRoot,
    nodePath: w.nodePath,
    judgingTools: w.judgingTools,
  };
  if (!w.tests) return new ProjectCoverageRunner({ ...options, root: w.root, jail: w.jail });
  const tree = w.tests.commands.o.tree;
  return new TreeCoverage(
    new ProjectCoverageRunner({ ...options, root: tree.dir, jail: w.tests.jail, sideEffects: { packagesOf: tree.root } }),
    w.tests.commands,
  );
}
