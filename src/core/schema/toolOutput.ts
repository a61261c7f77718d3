import type { z } from 'zod';
import { ToolOutputError } from '../errors';

type Issue = z.core.$ZodIssue;

/**
 * An issue as the value meant it: a union's own issue says only "invalid input", so it is
 * replaced by the issues of the branch that got furthest into the value.
 */
function meant(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const depth = (branch: Issue[]) => Math.max(0, ...branch.map((i) => i.path.length));
  const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  return best.flatMap((i) => meant({ ...i, path: [...issue.path, ...i.path] }));
}

/** A zod error in one line: its first issues, each at its JSON path (`$` for the whole value). */
export function issuesLine(error: z.ZodError, max = 3): string {
  return error.issues
    .flatMap(meant)
    .slice(0, max)
    .map((i) => `${['$', ...i.path.map(String)].join('.')}: ${i.message}`)
    .join('; ');
}

/**
 * A value another program produced, checked against the shape it is read as. `misfit` names
 * the tool and what was expected, for instance "ESLint's worker answered something that is not
 * a lint answer"; the issues follow it. Schemas should require only what is read and let
 * the rest through (loose objects), so a tool's newer fields are no misfit.
 */
export function checkToolOutput<T>(schema: z.ZodType<T>, value: unknown, misfit: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ToolOutputError(`${misfit}: ${issuesLine(parsed.error)}`);
  return parsed.data;
}

/** JSON text another program wrote, parsed and checked; text that is not JSON is a misfit too. */
export function parseToolJson<T>(schema: z.ZodType<T>, text: string, misfit: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ToolOutputError(`${misfit}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return checkToolOutput(schema, value, misfit);
}
