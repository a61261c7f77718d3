/**
 * A copy of a JSON-like value with `redact` applied to every string in it; the value itself
 * when nothing changed. Secret values are scrubbed from events and prompts with it.
 */
export function redactStrings<T>(value: T, redact: (text: string) => string): T {
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) {
    const out = value.map((v) => walk(v, redact));
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const w = walk(v, redact);
      if (w !== v) changed = true;
      out[k] = w;
    }
    return changed ? out : value;
  }
  return value;
}
