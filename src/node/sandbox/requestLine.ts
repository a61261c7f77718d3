/**
 * A line a worker process read on stdin, as an object: its fields, or none when the line is not
 * a JSON object. The workers check each field by hand rather than with zod, so that they stay a
 * few kilobytes and start fast; only their caller writes these lines, and checks what comes back.
 */
export function requestFields(line: string): Record<string, unknown> {
  let r: unknown;
  try {
    r = JSON.parse(line);
  } catch {
    return {};
  }
  return typeof r === 'object' && r !== null ? { ...r } : {};
}
