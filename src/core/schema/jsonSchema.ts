import { z } from 'zod';
import { Plan } from './plan';
import { Ticket } from './ticket';

/** A zod schema as the editor's JSON Schema. Input form: defaults are optional. */
function editorSchema(schema: z.ZodType, title: string, description: string): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title,
    description,
    ...Object.fromEntries(Object.entries(json).filter(([k]) => k !== '$schema')),
  };
}

const text = (schema: Record<string, unknown>) => JSON.stringify(schema, null, 2) + '\n';

/**
 * The ticket schema as JSON Schema, contributed through `jsonValidation` so the editor
 * completes and checks `.tickets/*.ticket.json`.
 */
export function ticketJsonSchema(): Record<string, unknown> {
  return editorSchema(
    Ticket,
    'Ticket Runner ticket',
    'A ticket: what to change, where (scope), how to know it is done (acceptance criteria and a structured test plan).',
  );
}

export function ticketJsonSchemaText(): string {
  return text(ticketJsonSchema());
}

/** The plan schema as JSON Schema, contributed for `*.plan.json` and `*.plan.yaml` as the ticket's is. */
export function planJsonSchema(): Record<string, unknown> {
  return editorSchema(Plan, 'Ticket Runner plan', 'A plan of tickets: each ticket of the plan, and the tickets it runs after.');
}

export function planJsonSchemaText(): string {
  return text(planJsonSchema());
}
