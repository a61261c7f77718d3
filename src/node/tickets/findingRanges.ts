import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

/** The segments of a finding's JSON path: `$.testPlan.files[0].path` → ['testPlan', 'files', 0, 'path']. */
export function pathSegments(jsonPath: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of jsonPath.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  return out;
}

/**
 * Where a finding sits in the ticket's text, as an offset and a length: the value at its JSON
 * path, or, for a key that is missing, the nearest object or array that holds it (the start of
 * the file for a ticket that does not parse).
 */
export function findingRange(text: string, jsonPath: string): { offset: number; length: number } {
  const root = parseTree(text);
  if (!root) return { offset: 0, length: 0 };
  const segments = pathSegments(jsonPath);
  for (let n = segments.length; n >= 0; n--) {
    const node: Node | undefined = n === 0 ? root : findNodeAtLocation(root, segments.slice(0, n));
    if (!node) continue;
    // A container that lacks the key: point at its opening line, not its whole body.
    if (n < segments.length && (node.type === 'object' || node.type === 'array')) return { offset: node.offset, length: 1 };
    return { offset: node.offset, length: node.length };
  }
  return { offset: 0, length: 0 };
}
