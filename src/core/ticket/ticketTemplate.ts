import { Document, isScalar, Scalar, visit } from 'yaml';
import { dirOf } from '../schema/paths';
import type { TicketFormat } from './ticketFormat';

export interface NewTicketOptions {
  id: string;
  title: string;
  /** The workspace file the ticket is about (the active editor's), if any: the scope and the test's import. */
  scopeFile?: string;
  /** The test file's language, from the workspace (a tsconfig means TypeScript). */
  language: 'ts' | 'js';
  /** ESM workspaces import with the emitted extension. */
  esm: boolean;
  /** The file's format: JSON (the default) or YAML, whose expressions are block scalars. */
  format?: TicketFormat;
}

/** What starts each place of a new ticket the author must write: `validate` and a run both refuse a ticket that still holds one. */
export const TEMPLATE_MARK = '<<fill in>>';

/** The JSON paths of the ticket's strings that still hold the template's mark. */
export function placeholderPaths(value: unknown, at = '$'): string[] {
  if (typeof value === 'string') return value.includes(TEMPLATE_MARK) ? [at] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholderPaths(v, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => placeholderPaths(v, `${at}.${k}`));
  return [];
}

/**
 * A new ticket's text, in JSON or YAML: valid against the schema, so completion and validation work from the
 * first keystroke, and unable to pass as it is: its one expectation compares two different
 * placeholder strings, so a ticket run before it is written fails instead of saying "passed".
 */
export function newTicketText(o: NewTicketOptions): string {
  const testPath = `test/ticket/${o.id}.test.${o.language}`;
  const imports = [];
  if (o.scopeFile) {
    const from = relativeSpecifier(dirOf(testPath), o.scopeFile.replace(/\.(c|m)?[tj]sx?$/, ''));
    imports.push({ from: o.esm ? `${from}.js` : from, names: [] as string[] });
  }
  const ticket = {
    id: o.id,
    title: o.title,
    description: `${TEMPLATE_MARK} what is wrong or missing today, and what must be true when this ticket is done.`,
    scope: { write: [o.scopeFile ?? `${TEMPLATE_MARK} src/the-file-to-change.ts`], read: [] as string[] },
    acceptance: [{ id: 'AC1', text: `${TEMPLATE_MARK} one behaviour a user can observe, checked by the test case below.` }],
    testPlan: {
      files: [
        {
          path: testPath,
          suite: `${o.id} ${o.title}`,
          imports,
          cases: [placeholderCase('AC1')],
        },
      ],
    },
    refs: [] as unknown[],
  };
  return ticketText(ticket, o.format ?? 'json');
}

/** A ticket's value as the text of its file: two-space JSON, or YAML with its TypeScript in block scalars and `comment` on top. */
export function ticketText(ticket: object, format: TicketFormat, comment = CODE_COMMENT): string {
  return format === 'yaml' ? yamlTicketText(ticket, comment) : `${JSON.stringify(ticket, null, 2)}\n`;
}

/** The keys whose strings are TypeScript: written as block scalars, so an expression needs no quoting. */
const CODE_KEYS = new Set(['actual', 'expected', 'call', 'arrange', 'declarations', 'before', 'beforeEach', 'afterEach', 'after']);

/** What a YAML ticket says on top by default: how its TypeScript is written, since that is why one writes a ticket in YAML. */
const CODE_COMMENT =
  ' A Ticket Runner ticket. The strings under arrange, actual and expected are TypeScript:\n' +
  ' write them after "|-" on their own lines, with no quoting. `ticket-runner validate` checks it.';

/** The template as YAML: the same value, with the TypeScript strings as literal block scalars (`|-`). */
function yamlTicketText(ticket: object, comment: string): string {
  const doc = new Document(ticket);
  doc.commentBefore = comment;
  visit(doc, {
    Pair(_key, pair) {
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      if (typeof key !== 'string' || !CODE_KEYS.has(key)) return;
      visit(pair.value as never, { Scalar: (_k, node) => void (typeof node.value === 'string' && (node.type = Scalar.BLOCK_LITERAL)) });
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/**
 * A test case for `criterion` that the author must write: its expectation compares two different
 * placeholder strings, so it fails if run, and `validate` refuses it while the mark is there.
 */
export function placeholderCase(criterion: string) {
  return {
    name: `${TEMPLATE_MARK} what the case checks`,
    criterion,
    arrange: [] as string[],
    expect: [
      { kind: 'equal', actual: `'${TEMPLATE_MARK} an expression over the code'`, expected: `'${TEMPLATE_MARK} the value it must have'` },
    ],
  };
}

/**
 * A "declare" op for a file the ticket creates, for the author to write: what the file will
 * export, one signature each; `validate` refuses it while the mark is there.
 */
export function placeholderDeclare(file: string) {
  return { op: 'declare', file, exports: [`${TEMPLATE_MARK} function name(arg: Type): ReturnType`] };
}

/** `to` relative to the folder `from`, as an import specifier (always starting with ./ or ../). */
function relativeSpecifier(from: string, to: string): string {
  const a = from ? from.split('/') : [];
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const up = a.slice(i).map(() => '..');
  const rel = [...up, ...b.slice(i)].join('/');
  return up.length ? rel : `./${rel}`;
}
