import { z } from 'zod';

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
]);
export type Expectation = z.infer<typeof Expectation>;

export const TestCase = z
  .object({
    name: z.string().min(1),
    criterion: z.string().optional().describe('The acceptance criterion id this case checks'),
    holdout: z
      .boolean()
      .optional()
      .describe('true: the Coder never sees this case, and it judges an attempt only once the visible cases pass. Omitted: the last case of each criterion with two or more cases is held out'),
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

export const TestPlan = z
  .object({
    framework: TestFramework.optional().describe('Omit to use the framework the workspace uses'),
    files: z.array(TestFile).min(1),
  })
  .strict();
export type TestPlan = z.infer<typeof TestPlan>;
