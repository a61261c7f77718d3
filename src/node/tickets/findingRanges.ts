import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import { isCollection, type Node as YamlNode } from 'yaml';
import { parseYamlTicket, yamlProblems, type TicketFormat } from '../../core/ticket/ticketFormat';

/** The segments of a finding's JSON path: `$.testPlan.files[0].path` → ['testPlan', 'files', 0, 'path']. */
export function pathSegments(jsonPath: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const m of jsonPath.replace(/^\$/, '').matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) out.push(m[1] !== undefined ? m[1] : Number(m[2]));
  return out;
}

/**
 * Where a finding sits in the ticket's text, as an offset and a length: the value at its JSON
 * path, or, for a key that is missing, the nearest object or array that holds it (the start of
 * the file for a JSON ticket that does not parse; a YAML ticket's first syntax problem).
 */
export function findingRange(text: string, jsonPath: string, format: TicketFormat = 'json'): { offset: number; length: number } {
  if (format === 'yaml') return yamlRange(text, jsonPath);
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

/** The YAML side of findingRange, read from the ranges the `yaml` parser gives each node. */
function yamlRange(text: string, jsonPath: string): { offset: number; length: number } {
  const doc = parseYamlTicket(text);
  const problem = yamlProblems(doc)[0];
  if (problem) return { offset: problem.offset, length: Math.max(1, text.indexOf('\n', problem.offset) - problem.offset) };
  const segments = pathSegments(jsonPath);
  for (let n = segments.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(segments.slice(0, n), true)) as YamlNode | null | undefined;
    if (!node?.range) continue;
    const [start, valueEnd] = node.range;
    // A collection that lacks the key: its first line, not its whole body.
    if (n < segments.length && isCollection(node)) {
      const eol = text.indexOf('\n', start);
      return { offset: start, length: Math.max(1, (eol < 0 ? text.length : eol) - start) };
    }
    return { offset: start, length: valueEnd - start };
  }
  return { offset: 0, length: 0 };
}
