import { UserInputError } from '../../errors';
import type { BuildPort, CoveragePort, TypeCheckPort } from '../../ports/gates';
import { GATE_NAMES, type GateName } from '../../schema/gates';

/** Which gates run and how; wired by hand from the settings or the CLI's flags. */
export interface GateSettings {
  /** The gates to run. They always run in GATE_NAMES order, whatever the order here. */
  enabled: readonly GateName[];
  /** A shell command line; the build gate runs only with one. */
  buildCommand?: string;
  buildTimeoutMs?: number;
  /** The fraction of changed executable lines the ticket's tests must run (0 to 1). */
  coverageThreshold?: number;
  /**
   * Gates whose error (a tool that crashed, a reviewer with no usable answer) is reported as
   * "not judged" instead of failing the run. A gate's failure still fails it. Empty by default:
   * gates fail closed.
   */
  optional?: readonly GateName[];
  /**
   * Which of the project's own tests the projectTests gate (and so the baseline) runs: those that
   * reach the change through imports, or all of them. Absent: `reach`.
   */
  projectTests?: ProjectTestsScope;
}

/** The values of the projectTests setting and of `--all-project-tests`. */
export const PROJECT_TESTS_SCOPES = ['reach', 'all'] as const;
export type ProjectTestsScope = (typeof PROJECT_TESTS_SCOPES)[number];

/** The gates' settings and the ports only they use (lint, model and tests are the pipeline's own). */
export interface GateDeps extends GateSettings {
  typecheck?: TypeCheckPort;
  build?: BuildPort;
  coverage?: CoveragePort;
}

/** The default gates of every host (the CLI and the extension): everything but the build, which needs a command. */
export const DEFAULT_GATES: readonly GateName[] = ['typecheck', 'lint', 'projectTests', 'implementationReview', 'testReview', 'coverage'];

/** A failing gate of these gets one code-only Coder repair pass; the others go to the operator. */
export const REPAIRABLE: ReadonlySet<GateName> = new Set(['typecheck', 'lint', 'build', 'projectTests', 'implementationReview']);

export const DEFAULT_BUILD_TIMEOUT_MS = 300_000;
/**
 * The share of the changed executable lines the ticket's tests must run. Every fixture ticket
 * meets 100%, but real changes carry defensive branches (error paths, guards) that a ticket's
 * few cases rarely reach: 80% catches a change its tests barely touch without failing honest
 * ones. `--coverage-threshold 1` (or the setting) asks for every line.
 */
export const DEFAULT_COVERAGE_THRESHOLD = 0.8;

/** Parses `typecheck,lint` (or `none`) into gate names, refusing unknown ones with the list. */
export function parseGateList(text: string): GateName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 1 && names[0] === 'none') return [];
  const unknown = names.filter((n) => !(GATE_NAMES as readonly string[]).includes(n));
  if (unknown.length)
    throw new UserInputError(
      `unknown gate${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: the gates are ${GATE_NAMES.join(', ')} (or none)`,
    );
  return [...new Set(names)] as GateName[];
}
