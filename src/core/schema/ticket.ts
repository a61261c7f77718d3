import { z } from 'zod';
import { TestPlan } from './testPlan';

/** A workspace-relative path, always with forward slashes. */
export const RelPath = z.string().min(1).describe('A workspace-relative path with forward slashes');

/**
 * Typed pre-Coder ops: mechanical edits applied with Tree-sitter and the language
 * service before any model runs. A failed op becomes a correction request.
 */
export const TicketOp = z.discriminatedUnion('op', [
  z
    .object({
      op: z.literal('renameSymbol'),
      file: RelPath,
      symbol: z.string().min(1).describe('The declared name to rename'),
      to: z.string().min(1),
    })
    .strict(),
  z
    .object({
      op: z.literal('addImport'),
      file: RelPath,
      from: z.string().min(1).describe('Module specifier'),
      names: z.array(z.string().min(1)).min(1),
    })
    .strict(),
  z
    .object({
      op: z.literal('setInterfaceField'),
      file: RelPath,
      interface: z.string().min(1),
      field: z.string().min(1),
      type: z.string().min(1).describe('The field type, as TypeScript source'),
      optional: z.boolean().default(false),
    })
    .strict(),
  z
    .object({
      op: z.literal('changeTypeAnnotation'),
      file: RelPath,
      symbol: z.string().min(1).describe('A variable, parameter path (fn.param) or function return (fn.return)'),
      type: z.string().min(1),
    })
    .strict(),
  z
    .object({
      op: z.literal('declare'),
      file: RelPath.describe('The TypeScript file that will hold the new exports; created when it does not exist'),
      exports: z
        .array(
          z
            .string()
            .min(1)
            .describe(
              'One declaration without a body, as TypeScript source: "function slugify(title: string): string", "interface Tag { name: string }", "const LIMIT: number"',
            ),
        )
        .min(1)
        .describe('What the ticket creates: each new export with its signature, laid over the code as a declaration before the Coder runs'),
    })
    .strict(),
]);
export type TicketOp = z.infer<typeof TicketOp>;

/**
 * A symbol the ticket relies on, such as `Post.publishedAt`. The manifest resolves each
 * with the language service; one that does not resolve is the machine fact behind a
 * "ticket is wrong" route.
 */
export const SymbolRef = z
  .object({
    symbol: z.string().min(1).describe('A type or value name, optionally with a member: Post or Post.tags'),
    file: RelPath.describe('The file that declares it'),
  })
  .strict();
export type SymbolRef = z.infer<typeof SymbolRef>;

/** A ticket's id, which names its file: letters, digits, dot, dash or underscore. */
export const TicketId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash or underscore (for example BLOG-1)');

export const AcceptanceCriterion = z
  .object({
    id: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'an id such as AC1'),
    text: z.string().min(1),
  })
  .strict();
export type AcceptanceCriterion = z.infer<typeof AcceptanceCriterion>;

export const Ticket = z
  .object({
    $schema: z.string().optional(),
    id: TicketId,
    title: z.string().min(1),
    description: z.string().min(1),
    scope: z
      .object({
        write: z.array(RelPath).min(1).describe('Files the Coder may create or change'),
        read: z.array(RelPath).default([]).describe('Files the Coder and Debugger may read but not change'),
      })
      .strict(),
    acceptance: z.array(AcceptanceCriterion).min(1),
    testPlan: TestPlan,
    refs: z.array(SymbolRef).default([]).describe('Symbols the ticket relies on; each must resolve'),
    ops: z.array(TicketOp).default([]),
    generalize: z
      .boolean()
      .optional()
      .describe(
        'false: no case is held out from the Coder, whatever the cases say. Omitted or true: held-out cases judge each attempt that passes the visible ones',
      ),
  })
  .strict()
  .superRefine((t, ctx) => {
    const ids = new Set<string>();
    t.acceptance.forEach((a, i) => {
      if (ids.has(a.id)) ctx.addIssue({ code: 'custom', path: ['acceptance', i, 'id'], message: `duplicate acceptance id "${a.id}"` });
      ids.add(a.id);
    });
    t.testPlan.files.forEach((f, fi) =>
      f.cases.forEach((c, ci) => {
        if (c.criterion !== undefined && !ids.has(c.criterion)) {
          ctx.addIssue({
            code: 'custom',
            path: ['testPlan', 'files', fi, 'cases', ci, 'criterion'],
            message: `criterion "${c.criterion}" is not one of the acceptance ids (${[...ids].join(', ')})`,
          });
        }
      }),
    );
  });
export type Ticket = z.infer<typeof Ticket>;
