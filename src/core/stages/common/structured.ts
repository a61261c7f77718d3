import { z } from 'zod';
import type { StructuredSpec } from '../../ports/model';

/**
 * The structured-output spec for a zod schema. The JSON Schema describes what the schema
 * accepts (`io: 'input'`), since the model's answer is parsed with that same schema: a
 * field with a default may be left out.
 */
export function structuredSpecFromZod(name: string, description: string, schema: z.ZodType): StructuredSpec {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  // A tool's input is always a JSON object; anything else would be refused by the API on every call.
  if (jsonSchema['type'] !== 'object') {
    throw new TypeError(`structured output "${name}" needs an object schema, got ${JSON.stringify(jsonSchema['type'] ?? 'no type')}`);
  }
  return { name, description, jsonSchema };
}
