import type { Expectation, TestImport } from '../../schema/testPlan';

/** What an assertion library renders: every expectation but a property, which fast-check renders for every framework. */
export type AssertionExpectation = Exclude<Expectation, { kind: 'property' }>;

/** The shape of the test file to write: its language, and for JavaScript its module system. */
export interface RenderOptions {
  language: 'ts' | 'js';
  moduleKind: 'esm' | 'cjs';
}

export const HOOK_KINDS = ['before', 'beforeEach', 'afterEach', 'after'] as const;
export type HookKind = (typeof HOOK_KINDS)[number];

/** How one assertion library spells every expectation of a test plan. */
export interface AssertionStyle {
  /** Names the assertions take from the framework's own module, when the framework has one (vitest's `expect`). */
  readonly frameworkNames: readonly string[];
  /** Modules the assertions import whatever the framework (node:assert). */
  readonly imports: readonly TestImport[];
  /** One statement; it starts with `await` where the expectation settles a promise. */
  render(expectation: AssertionExpectation): string;
  /**
   * The control: each assertion the style renders, called once with values that must fail it,
   * as `[name, statement]` pairs. Code under test that silences an assertion (replaces
   * `assert.strictEqual` with a no-op, say) makes the control, and so every case, fail.
   */
  readonly controls: readonly (readonly [string, string])[];
}

/** What sets one test framework apart from the others; everything else is shared. */
export interface FrameworkDialect {
  /** The module that exports describe, it and the hooks; undefined where the runner installs them as globals. */
  readonly module?: string;
  /**
   * The runner loads test files through its own ES module pipeline, and its module throws
   * when required, so a test file is written with `import` even in a CommonJS workspace.
   */
  readonly esmOnly: boolean;
  readonly hooks: Readonly<Record<HookKind, string>>;
  readonly assertions: AssertionStyle;
}

/** mocha's names, which node:test copied: before and after run once per describe block. */
export const mochaHooks = { before: 'before', beforeEach: 'beforeEach', afterEach: 'afterEach', after: 'after' } as const;

/** jasmine's names, kept by jest and vitest. */
export const jestHooks = { before: 'beforeAll', beforeEach: 'beforeEach', afterEach: 'afterEach', after: 'afterAll' } as const;
