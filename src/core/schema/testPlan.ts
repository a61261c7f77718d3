import { z } from 'zod';
import { relPathOrNone } from './paths';

/**
 * A structured test plan: the only thing a model may ever propose about tests.
 * The materializer renders it deterministically into a test file per framework,
 * so a rendered test is an oracle that no model writes.
 */

/** A TypeScript/JavaScript expression, as source text. */
const Expr = z.string().min(1).describe('A TypeScript expression, as source text');
/** A TypeScript/JavaScript statement, as source text. */
const Stmt = z.string().min(1).describe('A TypeScript statement, as source text');

export const TEST_FRAMEWORKS = ['node:test', 'vitest', 'jest', 'mocha'] as const;
export const TestFramework = z.enum(TEST_FRAMEWORKS);
export type TestFramework = z.infer<typeof TestFramework>;

export const TestImport = z
  .object({
    from: z.string().min(1).describe('Module specifier, relative to the test file (for example "../src/util")'),
    names: z.array(z.string().min(1)).default([]).describe('Named imports'),
    default: z.string().min(1).optional().describe('Default import binding'),
    namespace: z.string().min(1).optional().describe('Namespace import binding (import * as X)'),
  })
  .strict();
export type TestImport = z.infer<typeof TestImport>;

const negatable = { not: z.boolean().default(false).describe('Negate the expectation') };

/** A name the rendered predicate binds a generated value to. */
const ParamName = z
  .string()
  .regex(/^[A-Za-z_$][\w$]*$/, 'a parameter is a plain identifier, such as s or count')
  .describe('A parameter of the predicate');

/** The most inputs one property may ask for: a case must end within the test run's time limit. */
export const MAX_PROPERTY_RUNS = 10_000;

/**
 * A property over fresh inputs (generalize), rendered with fast-check: each arbitrary draws the
 * value of the parameter at its place, and the predicate must hold for every draw. The inputs are
 * drawn from a seed the run chooses for each attempt, so no answer can be fitted to them.
 */
const PropertyExpectation = z
  .object({
    kind: z.literal('property'),
    arbitraries: z
      .array(Expr)
      .min(1)
      .describe('fast-check arbitraries as source text over `fc`, one per parameter (for example "fc.string()")'),
    params: z.array(ParamName).min(1).describe('The names the predicate reads the drawn values by, in the order of the arbitraries'),
    predicate: Expr.describe(
      'An expression over the parameters: the property holds when it is true (or undefined); false or a throw is a counterexample. With await in it, the property is async',
    ),
    runs: z.number().int().min(1).max(MAX_PROPERTY_RUNS).default(100).describe('How many inputs fast-check draws'),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.arbitraries.length !== e.params.length) {
      const message = `a property draws one value per parameter: arbitraries has ${e.arbitraries.length}, params has ${e.params.length} (${e.params.join(', ')})`;
      ctx.addIssue({ code: 'custom', path: ['params'], message });
    }
    const twice = e.params.filter((p, i) => e.params.indexOf(p) !== i);
    if (twice.length)
      ctx.addIssue({
        code: 'custom',
        path: ['params'],
        message: `each parameter needs its own name: ${[...new Set(twice)].join(', ')} is given twice`,
      });
  });
export type PropertyExpectation = z.infer<typeof PropertyExpectation>;

export const Expectation = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('equal'),
      actual: Expr,
      expected: Expr,
      mode: z.enum(['strict', 'deep']).default('strict').describe('strict: ===; deep: structural equality'),
      ...negatable,
    })
    .strict(),
  z.object({ kind: z.literal('truthy'), actual: Expr, ...negatable }).strict(),
  z
    .object({
      kind: z.literal('throws'),
      call: Expr.describe('An expression that is called inside a function, e.g. parse("x")'),
      message: z.string().optional().describe('A substring the error message must contain'),
      ...negatable,
    })
    .strict(),
  z
    .object({
      kind: z.literal('rejects'),
      call: Expr.describe('An expression that evaluates to a promise, e.g. load("x")'),
      message: z.string().optional().describe('A substring the rejection message must contain'),
      ...negatable,
    })
    .strict(),
  PropertyExpectation,
]);
export type Expectation = z.infer<typeof Expectation>;

/** Each piece of source text an expectation holds, by the field it is in (a list's items as `field[i]`). */
export function expectationSources(e: Expectation): Record<string, string> {
  switch (e.kind) {
    case 'equal':
      return { actual: e.actual, expected: e.expected };
    case 'truthy':
      return { actual: e.actual };
    case 'throws':
    case 'rejects':
      return { call: e.call };
    case 'property':
      return { ...Object.fromEntries(e.arbitraries.map((a, i) => [`arbitraries[${i}]`, a])), predicate: e.predicate };
  }
}

export const TestCase = z
  .object({
    name: z.string().min(1),
    criterion: z.string().optional().describe('The acceptance criterion id this case checks'),
    holdout: z
      .boolean()
      .optional()
      .describe(
        'true: the Coder never sees this case, and it judges an attempt only once the visible cases pass. Omitted: the last case of each criterion with two or more cases is held out',
      ),
    async: z.boolean().default(false),
    arrange: z.array(Stmt).default([]).describe('Statements run before the expectations'),
    expect: z.array(Expectation).min(1),
  })
  .strict();
export type TestCase = z.infer<typeof TestCase>;

export const TestHooks = z
  .object({
    before: z.array(Stmt).default([]),
    beforeEach: z.array(Stmt).default([]),
    afterEach: z.array(Stmt).default([]),
    after: z.array(Stmt).default([]),
  })
  .strict();
export type TestHooks = z.infer<typeof TestHooks>;

export const TestFile = z
  .object({
    path: z.string().min(1).describe('Workspace-relative path of the rendered test file'),
    suite: z.string().min(1).describe('The describe() block name'),
    imports: z.array(TestImport).default([]),
    declarations: z.array(Stmt).default([]).describe('Top-level statements shared by the cases (let x: T;)'),
    hooks: TestHooks.optional(),
    cases: z.array(TestCase).min(1),
  })
  .strict();
export type TestFile = z.infer<typeof TestFile>;

/**
 * A test file the author wrote, judged as the oracle beside the rendered ones: a path, or the
 * path with `heldOut` to keep it from the Coder as a held-out case is kept.
 */
export const AuthoredTest = z.union([
  z.string().min(1).describe('Workspace-relative path of a test file the author wrote'),
  z
    .object({
      path: z.string().min(1).describe('Workspace-relative path of a test file the author wrote'),
      heldOut: z
        .boolean()
        .default(false)
        .describe('true: the Coder never sees this file; it judges an attempt once the visible tests pass'),
    })
    .strict(),
]);
export type AuthoredTest = z.infer<typeof AuthoredTest>;

export const TestPlan = z
  .object({
    framework: TestFramework.optional().describe('Omit to use the framework the workspace uses'),
    files: z.array(TestFile).default([]).describe('Test files rendered from cases'),
    authored: z
      .array(AuthoredTest)
      .optional()
      .describe('Test files the author wrote: frozen for the run, and every case in them must pass'),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (!p.files.length && !p.authored?.length)
      ctx.addIssue({
        code: 'custom',
        path: ['files'],
        message: 'a test plan needs a rendered file in "files" or a test file you wrote in "authored"',
      });
  });
export type TestPlan = z.infer<typeof TestPlan>;

/** A plan's authored test files, each with its path as written and whether it is held out. */
export function authoredTests(plan: Pick<TestPlan, 'authored'>): { path: string; heldOut: boolean }[] {
  return (plan.authored ?? []).map((a) => (typeof a === 'string' ? { path: a, heldOut: false } : a));
}

/** The paths of a `testPlan.authored` value not checked yet (a ticket being typed, one a lens reads), normalized; anything else skipped. */
export function authoredPathsOf(authored: unknown): string[] {
  if (!Array.isArray(authored)) return [];
  return authored.flatMap((a: unknown) => {
    const named = typeof a === 'string' ? a : (a as { path?: unknown } | null)?.path;
    const p = typeof named === 'string' ? relPathOrNone(named) : undefined;
    return p ? [p] : [];
  });
}
