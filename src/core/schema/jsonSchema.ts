import { z } from 'zod';
import { Ticket } from './ticket';

/**
 * The ticket schema as JSON Schema, contributed through `jsonValidation` so the editor
 * completes and checks `.tickets/*.ticket.json`. Input form: defaults are optional.
 */
export function ticketJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Ticket, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Ticket Runner ticket',
    description: 'A ticket: what to change, where (scope), how to know it is done (acceptance criteria and a structured test plan).',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}

export function ticketJsonSchemaText(): string {
  return JSON.stringify(ticketJsonSchema(), null, 2) + '\n';
}
