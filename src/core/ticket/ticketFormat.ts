import { Scalar, isMap, isScalar, isSeq, parseDocument, visit, type Document, type Node as YamlNode } from 'yaml';
import { TicketValidationError, UserInputError } from '../errors';

/**
 * The one place that knows a ticket's file formats: JSON (`.ticket.json`) and YAML
 * (`.ticket.yaml`, `.ticket.yml`, where block scalars spare expressions their quoting). Everything
 * past this module sees the same plain value, checked by the same zod schema.
 */
export type TicketFormat = 'json' | 'yaml';

/** The file names a ticket may have, the JSON form first (the one examples name). */
export const TICKET_SUFFIXES = ['.ticket.json', '.ticket.yaml', '.ticket.yml'] as const;

export function ticketFormatOf(path: string): TicketFormat {
  return /\.ya?ml$/i.test(path) ? 'yaml' : 'json';
}

export function isTicketFileName(name: string): boolean {
  return TICKET_SUFFIXES.some((s) => name.endsWith(s));
}

/** The ticket's file name without its ticket suffix (BLOG-5 for .tickets/BLOG-5.ticket.yaml). */
export function ticketBaseName(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const suffix = TICKET_SUFFIXES.find((s) => base.endsWith(s));
  return suffix ? base.slice(0, -suffix.length) : base.replace(/\.(json|ya?ml)$/i, '');
}

/** 1-based line and column of a character offset. */
export function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/**
 * A YAML document read the strict way: YAML 1.2's core schema (`no` stays a string, no `<<`
 * merges), unique keys, and one document. Shared with the editor's ranges, so a finding's place
 * is read from the same tree the value came from.
 */
export function parseYamlTicket(text: string): Document.Parsed {
  return parseDocument(text, {
    version: '1.2',
    schema: 'core',
    merge: false,
    uniqueKeys: true,
    prettyErrors: false,
    keepSourceTokens: false,
  });
}

/** What a YAML error means to a ticket author, with the fix; the parser's own words otherwise. */
function yamlProblem(code: string, message: string): string {
  switch (code) {
    case 'DUPLICATE_KEY':
      return 'a key appears twice in the same mapping: keep one';
    case 'TAB_AS_INDENT':
      return 'a tab indents this line: YAML indents with spaces only';
    case 'MULTIPLE_DOCS':
      return "a ticket is one YAML document: remove the second '---' and what follows it, or move it to its own file";
    default:
      return message.split('\n')[0]!;
  }
}

/** The YAML problems that stop a ticket, with their offsets: the parser's errors and warnings, and any alias. */
export function yamlProblems(doc: Document.Parsed): { offset: number; message: string }[] {
  const out = [...doc.errors, ...doc.warnings].map((e) => ({ offset: e.pos[0], message: yamlProblem(e.code, e.message) }));
  // An alias can expand a few lines into gigabytes (the "billion laughs"); a ticket has no need of one.
  visit(doc, {
    Alias(_key, node) {
      out.push({
        offset: node.range?.[0] ?? 0,
        message: `an alias (*${node.source}) repeats another value: write the value out; anchors and aliases are not allowed in a ticket`,
      });
      return visit.BREAK;
    },
  });
  return out.sort((a, b) => a.offset - b.offset);
}

/**
 * The plain value of a ticket's text, in its file's format. A text that does not parse is a
 * TicketValidationError at `$` whose one line says where (line and column) and what to fix.
 */
export function readTicketData(file: string, text: string): unknown {
  if (ticketFormatOf(file) === 'yaml') {
    const doc = parseYamlTicket(text);
    const first = yamlProblems(doc)[0];
    if (first)
      throw new TicketValidationError(file, [{ path: '$', message: `not valid YAML (${position(text, first.offset)}): ${first.message}` }]);
    return doc.toJS({ maxAliasCount: 0 }) as unknown;
  }
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const at = /position (\d+)/.exec(msg);
    const where = at?.[1] !== undefined ? ` (${position(text, Number(at[1]))})` : '';
    throw new TicketValidationError(file, [{ path: '$', message: `not valid JSON${where}: ${msg}` }]);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Equal as JSON values, whatever the order of their keys (a YAML map keeps the file's order). */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue(a[k], b[k]));
  }
  return a === b;
}

/** A replacement of `[start, end)` of the YAML text. */
interface Splice {
  start: number;
  end: number;
  text: string;
}

/** A string as a plain YAML scalar when it is plainly safe in any context, else as JSON (a valid double-quoted YAML scalar); also what the editor inserts. */
export function inlineString(v: string): string {
  return /^[A-Za-z_./@][A-Za-z0-9 _./@()=<>+*-]*$/.test(v) && !/ $|: | #/.test(v) && !/^(true|false|null|~)$/i.test(v)
    ? v
    : JSON.stringify(v);
}

/** One line of YAML for any value: JSON is flow YAML. */
const inline = (v: unknown): string => (typeof v === 'string' ? inlineString(v) : JSON.stringify(v));

/** The column a node starts at in the text. */
function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** A changed scalar, in its old style where that is safe: a block scalar stays a block at its indentation. */
function scalarSplice(text: string, node: Scalar, next: unknown): Splice {
  const [start, end] = node.range!;
  const blockBody = /^\|-?\n( +)/.exec(text.slice(start, end)) ?? /^>-?\n( +)/.exec(text.slice(start, end));
  if (
    typeof next === 'string' &&
    (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) &&
    blockBody &&
    next &&
    !/^[ \t]|\s$|\r|\n[ \t]/.test(next)
  ) {
    const indent = blockBody[1]!;
    const body = `|-\n${next
      .split('\n')
      .map((l) => (l ? indent + l : l))
      .join('\n')}`;
    return { start, end, text: text[end - 1] === '\n' ? body + '\n' : body };
  }
  if (typeof next === 'string' && node.type === Scalar.QUOTE_SINGLE && !next.includes('\n'))
    return { start, end, text: `'${next.replace(/'/g, "''")}'` };
  return { start, end, text: inline(next) };
}

/**
 * The text edits that bring `node` to `next`, touching only what differs: unchanged values,
 * comments and block scalars keep their text; a list that grows at its end gets new items in
 * its own style; anything else that changes shape is rewritten as one line of flow YAML.
 */
function yamlSplices(text: string, doc: Document.Parsed, node: YamlNode | null, next: unknown, out: Splice[]): boolean {
  if (!node?.range) return false;
  if (sameValue(node.toJS(doc), next)) return true;
  const [start, end] = node.range;
  const whole = (): boolean => (out.push({ start, end, text: inline(next) }), true);
  if (isScalar(node)) return (out.push(scalarSplice(text, node, next)), true);
  const flow = text[start] === '[' || text[start] === '{';
  if (isMap(node) && isPlainObject(next)) {
    const keys = node.items.map((p) => (isScalar(p.key) ? p.key.value : p.key));
    if (!keys.every((k) => typeof k === 'string' && Object.prototype.hasOwnProperty.call(next, k))) return whole();
    for (const pair of node.items)
      if (!yamlSplices(text, doc, pair.value as YamlNode | null, next[(pair.key as Scalar).value as string], out)) return whole();
    const added = Object.keys(next).filter((k) => !keys.includes(k));
    if (added.length)
      out.push(
        appended(
          text,
          start,
          end,
          flow,
          added.map((k) => `${inlineString(k)}: ${inline(next[k])}`),
        ),
      );
    return true;
  }
  if (isSeq(node) && Array.isArray(next) && next.length >= node.items.length) {
    for (const [i, item] of node.items.entries()) if (!yamlSplices(text, doc, item as YamlNode | null, next[i], out)) return whole();
    if (next.length > node.items.length)
      out.push(
        appended(
          text,
          start,
          end,
          flow,
          next.slice(node.items.length).map((v) => (flow ? inline(v) : `- ${inline(v)}`)),
        ),
      );
    return true;
  }
  return whole();
}

/** New entries at the end of a collection: before the closing bracket of a flow one, as lines at its column for a block one. */
function appended(text: string, start: number, end: number, flow: boolean, entries: string[]): Splice {
  if (flow) {
    const close = end - 1;
    const empty = /^[[{]\s*$/.test(text.slice(start, close));
    return { start: close, end: close, text: `${empty ? '' : ', '}${entries.join(', ')}` };
  }
  const pad = ' '.repeat(columnOf(text, start));
  const lines = entries.map((e) => pad + e);
  return text[end - 1] === '\n' ? { start: end, end, text: lines.join('\n') + '\n' } : { start: end, end, text: '\n' + lines.join('\n') };
}

/**
 * The ticket's text holding `value`, in its file's format: JSON is written whole (two spaces,
 * as the template writes it); YAML is edited in place, so what the change does not touch keeps
 * its text. The result is read back and must hold exactly `value`.
 */
export function writeTicketData(file: string, before: string, value: unknown): string {
  // As JSON sees it: a key whose value is undefined is no key.
  value = JSON.parse(JSON.stringify(value));
  if (ticketFormatOf(file) === 'json') return JSON.stringify(value, null, 2) + '\n';
  const doc = parseYamlTicket(before);
  if (yamlProblems(doc).length) throw new UserInputError(`${file} is no longer valid YAML; fix it before accepting the correction`);
  const splices: Splice[] = [];
  let text = yamlSplices(before, doc, doc.contents, value, splices) ? before : inline(value) + '\n';
  // From the end back, so offsets hold; at one offset the outer collection's entries (found last) go after the inner's.
  const order = splices.map((s, i) => ({ s, i })).sort((a, b) => b.s.start - a.s.start || b.i - a.i);
  for (const { s } of order) text = text.slice(0, s.start) + s.text + text.slice(s.end);
  let readBack: unknown;
  try {
    readBack = readTicketData(file, text);
  } catch {
    readBack = undefined;
  }
  if (!sameValue(readBack, value))
    throw new UserInputError(`${file}: the change could not be written as YAML that reads back the same; make it by hand`);
  return text;
}
