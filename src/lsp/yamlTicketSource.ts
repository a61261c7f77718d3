import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { inlineString, parseYamlTicket, writeTicketData, yamlProblems } from '../core/ticket/ticketFormat';
import { findingRange } from '../node/tickets/findingRanges';
import type { Cursor, Segment, Span, TicketSource, TextChange } from './ticketSource';

/**
 * A `.ticket.yaml` through the core's strict YAML reading (the one `validate` uses), so a
 * finding's place is read from the same tree its value came from. A text with a YAML problem
 * (an alias, a duplicate key, a tab indent, a second document) has no value here: validate's one
 * "not valid YAML" finding is all the server reports until it is fixed.
 */
export function yamlTicketSource(text: string): TicketSource {
  const doc = parseYamlTicket(text);
  const value = yamlProblems(doc).length ? undefined : plain(doc);
  return {
    text,
    value,
    rangeOf: (jsonPath) => findingRange(text, jsonPath, 'yaml'),
    spanAt(path: Segment[]): Span | undefined {
      const node = (path.length ? doc.getIn(path, true) : doc.contents) as Node | null | undefined;
      return node?.range ? { offset: node.range[0], length: node.range[1] - node.range[0] } : undefined;
    },
    locate: (offset) => locate(doc.contents, offset, []),
    set(path, next, insert = false) {
      if (value === undefined || !path.length) return [];
      const copy = structuredClone(value) as Record<string | number, unknown>;
      const parent = path
        .slice(0, -1)
        .reduce<unknown>((v, s) => (v && typeof v === 'object' ? (v as Record<string | number, unknown>)[s] : undefined), copy);
      const last = path[path.length - 1]!;
      if (!parent || typeof parent !== 'object') return [];
      if (insert && Array.isArray(parent) && typeof last === 'number') parent.splice(last, 0, next);
      else (parent as Record<string | number, unknown>)[last] = next;
      try {
        // The core's in-place YAML writer: what the change does not touch keeps its text, and the
        // result is read back and must hold exactly the new value.
        return [oneChange(text, writeTicketData('ticket.yaml', text, copy))];
      } catch {
        return [];
      }
    },
    quote: inlineString,
    expectationSnippet(kind, fields, offset) {
      // Block style at the cursor's column (after `- `): each code field a block scalar, so the
      // TypeScript in it needs no quoting at all.
      const pad = ' '.repeat(offset - (text.lastIndexOf('\n', offset - 1) + 1));
      const field = (f: string, n: number) =>
        f.endsWith('[]')
          ? [`${pad}${f.slice(0, -2)}:`, `${pad}  - |-`, `${pad}    \${${n + 1}}`]
          : [`${pad}${f}: |-`, `${pad}  \${${n + 1}}`];
      return [`kind: ${kind}`, ...fields.flatMap(field)].join('\n');
    },
  };
}

/** The document's value, or undefined when it cannot be read (toJS refuses an alias). */
function plain(doc: ReturnType<typeof parseYamlTicket>): unknown {
  try {
    return doc.toJS({ maxAliasCount: 0 }) as unknown;
  } catch {
    return undefined;
  }
}

/** The text between the common head and tail of two texts, as one replacement. */
function oneChange(before: string, after: string): TextChange {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let tail = 0;
  while (tail < before.length - start && tail < after.length - start && before[before.length - 1 - tail] === after[after.length - 1 - tail])
    tail++;
  return { offset: start, length: before.length - start - tail, content: after.slice(start, after.length - tail) };
}

const inside = (node: Node | null | undefined, offset: number): boolean =>
  !!node?.range && offset >= node.range[0] && offset <= node.range[1];

/**
 * The path under the cursor in a YAML tree. A key's value runs from its key to the next key, so
 * a cursor after `criterion: ` (an empty value, null in YAML) stands in the criterion.
 */
function locate(node: Node | null, offset: number, path: Segment[]): Cursor {
  if (isMap(node)) {
    const pairs = node.items.filter((p) => (p.key as Node | null)?.range && (p.key as Node).range![0] <= offset);
    const pair = pairs[pairs.length - 1];
    if (!pair) return { path, atKey: false };
    const key = pair.key as Node;
    const name = isScalar(key) ? String(key.value) : '';
    if (offset <= key.range![1]) return { path: [...path, name], atKey: true };
    const value = pair.value as Node | null;
    if (inside(value, offset) || ((isMap(value) || isSeq(value)) && value.range && offset >= value.range[0]))
      return locate(value, offset, [...path, name]);
    return { path: [...path, name], atKey: false };
  }
  if (isSeq(node)) {
    const items = node.items
      .map((item, i) => ({ item: item as Node | null, i }))
      .filter(({ item }) => item?.range && item.range[0] <= offset);
    const last = items[items.length - 1];
    if (!last) return { path, atKey: false };
    if (inside(last.item, offset) || isMap(last.item) || isSeq(last.item)) return locate(last.item, offset, [...path, last.i]);
    return { path, atKey: false };
  }
  if (isScalar(node) && typeof node.value === 'string' && node.range) {
    return { path, atKey: false, string: { value: node.value, offset: node.range[0], length: node.range[1] - node.range[0] } };
  }
  return { path, atKey: false };
}
