import { findNodeAtLocation, getLocation, modify, parse, parseTree, type Node } from 'jsonc-parser';
import { findingRange } from '../node/tickets/findingRanges';
import type { Cursor, Segment, Span, TicketSource } from './ticketSource';

/** A `.ticket.json` through jsonc-parser, which keeps a tree while the text is half typed. */
export function jsonTicketSource(text: string): TicketSource {
  const root = parseTree(text);
  return {
    text,
    value: parse(text),
    rangeOf: (jsonPath) => findingRange(text, jsonPath),
    spanAt(path: Segment[]): Span | undefined {
      const node = root && findNodeAtLocation(root, path);
      return node ? { offset: node.offset, length: node.length } : undefined;
    },
    locate(offset: number): Cursor | undefined {
      if (!root) return undefined;
      const loc = getLocation(text, offset);
      const node: Node | undefined = loc.previousNode;
      const inString =
        node?.type === 'string' &&
        offset > node.offset &&
        offset < node.offset + node.length + (text[node.offset + node.length - 1] === '"' ? 0 : 1);
      return {
        path: loc.path,
        atKey: loc.isAtPropertyKey,
        string: inString && node ? { value: String(node.value ?? ''), offset: node.offset, length: node.length } : undefined,
      };
    },
    set(path, value, insert = false) {
      return modify(text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' }, isArrayInsertion: insert });
    },
    quote: (value) => JSON.stringify(value),
    expectationSnippet: (kind, fields) =>
      `{ "kind": ${JSON.stringify(kind)}, ${fields.map((f, n) => (f.endsWith('[]') ? `${JSON.stringify(f.slice(0, -2))}: ["\${${n + 1}}"]` : `${JSON.stringify(f)}: "\${${n + 1}}"`)).join(', ')} }`,
  };
}
