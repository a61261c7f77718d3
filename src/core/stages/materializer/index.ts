import type { TestFile, TestFramework, TestPlan } from '../../schema/testPlan';
import type { FrameworkDialect, RenderOptions } from './dialect';
import { jest } from './jest';
import { mocha } from './mocha';
import { nodeTest } from './nodeTest';
import { layOutWithDialect, renderWithDialect, type RenderedPlace } from './render';
import { vitest } from './vitest';

export type { RenderOptions } from './dialect';
export { caseCode, GENERATED_HEADER, type RenderedPlace } from './render';

/** A rendered test file: its workspace-relative path (as the plan gives it) and its content. */
export interface MaterializedFile {
  path: string;
  content: string;
}

const dialects = { 'node:test': nodeTest, vitest, jest, mocha } satisfies Record<TestFramework, FrameworkDialect>;

/**
 * Renders one test file of a plan for `framework`. `.js` with `cjs` is written with require(),
 * anything else with import (vitest always with import: it cannot be required).
 */
export function renderTestFile(file: TestFile, framework: TestFramework, options: RenderOptions): string {
  return renderWithDialect(file, dialects[framework], options);
}

/**
 * Renders every file of a plan, in plan order. `framework` is the one the run resolved (the
 * manifest's runner, which already honours `plan.framework`), so it wins over the plan's field:
 * a corrected plan cannot switch the tests to a runner the run does not use.
 */
export function materialize(plan: TestPlan, framework: TestFramework, options: RenderOptions): MaterializedFile[] {
  return plan.files.map((file) => ({ path: file.path, content: renderTestFile(file, framework, options) }));
}

/** A rendered file with where each part of its plan lands in it. */
export interface LaidOutTestFile extends MaterializedFile {
  places: RenderedPlace[];
}

/** `materialize`, with the places: for the checks that speak of the plan's parts, not of the rendered lines. */
export function layOutPlan(plan: TestPlan, framework: TestFramework, options: RenderOptions): LaidOutTestFile[] {
  return plan.files.map((file) => ({ path: file.path, ...layOutWithDialect(file, dialects[framework], options) }));
}
