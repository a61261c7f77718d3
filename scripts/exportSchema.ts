// Writes schemas/ticket.schema.json from the zod ticket schema. A unit test fails when the
// committed file is stale, so run `npm run schema` after changing src/core/schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ticketJsonSchemaText } from '../src/core/schema/jsonSchema';

writeFileSync(join(__dirname, '..', 'schemas', 'ticket.schema.json'), ticketJsonSchemaText());
