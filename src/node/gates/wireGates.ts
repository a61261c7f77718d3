import * as path from 'node:path';
import type { GateDeps, GateSettings } from '../../core/stages/gates/config';
import type { ProcessJail } from '../sandbox/processJail';
import { ShellBuild } from './buildCommand';
import { ProjectCoverageRunner } from './coverageRunner';
import { TscTypeCheck } from './tscTypeCheck';
import type { JudgingTools } from '../testRunners/judgingTools';

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
}

/** The gates' ports over the workspace on disk, with the settings the caller chose. */
export function nodeGates(settings: GateSettings, w: GateWiring): GateDeps {
  return {
    ...settings,
    typecheck: new TscTypeCheck({ root: w.root, fallbackDir: w.pkgRoot, nodePath: w.nodePath, jail: w.jail, serverScript: path.join(w.dist, 'tscServer.js') }),
    build: new ShellBuild(w.root, w.jail),
    coverage: new ProjectCoverageRunner({ root: w.root, nodeTestReporter: path.join(w.dist, 'nodeTestReporter.mjs'), fallbackDir: w.pkgRoot, nodePath: w.nodePath, jail: w.jail, judgingTools: w.judgingTools }),
  };
}
