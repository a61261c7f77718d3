import { inspect } from 'node:util';

/** An expected or actual value as one line of text, the way Node's own assert prints it. */
export function showValue(value: unknown): string {
  return inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });
}
