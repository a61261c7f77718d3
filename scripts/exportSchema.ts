// Writes schemas/ticket.schema.json and schemas/plan.schema.json from the zod schemas. A unit test
// fails when a committed file is stale, so run `npm run schema` after changing src/core/schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planJsonSchemaText, ticketJsonSchemaText } from '../src/core/schema/jsonSchema';

writeFileSync(join(__dirname, '..', 'schemas', 'ticket.schema.json'), ticketJsonSchemaText());
writeFileSync(join(__dirname, '..', 'schemas', 'plan.schema.json'), planJsonSchemaText());
