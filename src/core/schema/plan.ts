import { z } from 'zod';
import { RelPath, TicketId } from './ticket';

/**
 * One ticket of a plan, and the tickets it waits for. The entry's id (what `after` lists) is the
 * ticket's id: `ticket` itself when it is an id, the file's name without `.ticket.*` when it is a
 * path, since a ticket's id names its file.
 */
export const PlanTicket = z
  .object({
    ticket: z
      .string()
      .min(1)
      .describe('A ticket id (BLOG-7, its file in .tickets/) or the workspace-relative path of its file (.tickets/BLOG-7.ticket.yaml)'),
    after: z.array(TicketId).default([]).describe('The ids of the tickets of this plan that must pass before this one starts'),
    task: z.string().min(1).optional().describe('The task of the source task list this ticket was drafted from (T003, 2.1)'),
  })
  .strict();
export type PlanTicket = z.infer<typeof PlanTicket>;

/** Where an imported plan came from, and what the import could not make into a ticket. */
export const PlanSource = z
  .object({
    file: RelPath.describe('The task list the plan was drafted from'),
    format: z.enum(['speckit', 'kiro']).describe("The task list's format: Spec Kit's tasks.md or Kiro's"),
    requirements: RelPath.optional().describe('The requirements file whose criteria the tasks link to (Kiro)'),
    notes: z
      .array(z.string().min(1))
      .default([])
      .describe('What the import left out or could not read, and why: a task already done, a task with no valid draft, an unknown marker'),
  })
  .strict();
export type PlanSource = z.infer<typeof PlanSource>;

/**
 * A plan of tickets: the tickets to run and the order they wait for each other in. Only the
 * order is the plan's; each ticket is a ticket file of its own, run as any ticket is.
 */
export const Plan = z
  .object({
    $schema: z.string().optional(),
    id: TicketId.describe("The plan's id; its file is .tickets/<id>.plan.yaml or .plan.json"),
    title: z.string().min(1),
    tickets: z.array(PlanTicket).min(1).describe('Every ticket of the plan, in the order a reader meets them'),
    source: PlanSource.optional(),
  })
  .strict();
export type Plan = z.infer<typeof Plan>;
