import type { TestImport } from '../../schema/testPlan';

export const INDENT = '  ';

/** Escapes for the characters that may not stand raw inside a one-line literal, or would not survive a round trip through UTF-8. */
function escapeSpecial(ch: string): string | undefined {
  switch (ch) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  const lineSeparator = code === 0x2028 || code === 0x2029;
  const loneSurrogate = code >= 0xd800 && code <= 0xdfff;
  if (lineSeparator || loneSurrogate) return `\\u${code.toString(16).padStart(4, '0')}`;
  return undefined;
}

function escapeWith(text: string, syntax: string): string {
  let out = '';
  for (const ch of text) out += syntax.includes(ch) ? `\\${ch}` : (escapeSpecial(ch) ?? ch);
  return out;
}

/** A single-quoted string literal with exactly the value `text`. */
export function quote(text: string): string {
  return `'${escapeWith(text, "\\'")}'`;
}

/**
 * A regular expression literal that matches `text` as a plain substring. A bare string would
 * not do: node:assert takes a string second argument as its own failure message, not as a
 * pattern, so the check would silently vanish.
 */
export function substringPattern(text: string): string {
  return `/${escapeWith(text, '\\^$.*+?()[]{}|/')}/`;
}

/** Source text from the plan, with line endings made uniform so the output is the same on every OS. */
export function sourceText(text: string): string {
  return text.replace(/\r\n?/g, '\n').trim();
}

/** A plan statement, closed with a semicolon so the statement after it cannot run on into it. */
export function statement(text: string): string {
  const body = sourceText(text);
  return /[;}]$/.test(body) ? body : `${body};`;
}

/** `() => call`, with an object literal wrapped so that it is not read as a block. */
export function thunk(call: string): string {
  const body = sourceText(call);
  return `() => ${body.startsWith('{') ? `(${body})` : body}`;
}

/** The logical negation of an expression, parenthesized unless it is a plain name or property path. */
export function negation(expression: string): string {
  const body = sourceText(expression);
  return /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(body) ? `!${body}` : `!(${body})`;
}

/**
 * Indents source text by `depth` levels. A later line of a template literal (or of a string
 * continued with a backslash) is part of the value, so text that may hold one keeps its later
 * lines as written.
 */
export function indent(text: string, depth: number): string {
  const pad = INDENT.repeat(depth);
  if (text.includes('`') || text.includes('\\\n')) return pad + text;
  return text
    .split('\n')
    .map((line) => (line === '' ? line : pad + line))
    .join('\n');
}

/** Whether source text waits on a promise, so the function around it must be async. */
export function awaits(texts: readonly string[]): boolean {
  return texts.some((text) => /\bawait\b/.test(text));
}

/**
 * require() has no default import: this helper, written into the file, gives the binding that
 * TypeScript's esModuleInterop and Babel would.
 */
const INTEROP_DEFAULT = 'interopDefault';
const INTEROP_DEFAULT_SOURCE = [
  '// A transpiled ES module keeps its default export on .default; a plain CommonJS module is its own default.',
  `function ${INTEROP_DEFAULT}(m) {`,
  `${INDENT}return m && m.__esModule ? m.default : m;`,
  '}',
];

/** `a as b` in an import clause is `a: b` in a destructuring require. */
function requireBinding(name: string): string {
  return name.replace(/^(\S+)\s+as\s+(\S+)$/, '$1: $2');
}

function esmImport(spec: TestImport): string[] {
  const from = quote(spec.from);
  const names = spec.names.map((name) => name.trim());
  const clause = [spec.default, names.length > 0 ? `{ ${names.join(', ')} }` : undefined].filter((part) => part !== undefined);
  const lines: string[] = [];
  if (clause.length > 0) lines.push(`import ${clause.join(', ')} from ${from};`);
  // A namespace import cannot share a clause with named imports, so it always stands alone.
  if (spec.namespace !== undefined) lines.push(`import * as ${spec.namespace} from ${from};`);
  return lines.length > 0 ? lines : [`import ${from};`];
}

function cjsImport(spec: TestImport): string[] {
  const load = `require(${quote(spec.from)})`;
  const names = spec.names.map((name) => requireBinding(name.trim()));
  const lines: string[] = [];
  if (spec.default !== undefined) lines.push(`const ${spec.default} = ${INTEROP_DEFAULT}(${load});`);
  if (names.length > 0) lines.push(`const { ${names.join(', ')} } = ${load};`);
  if (spec.namespace !== undefined) lines.push(`const ${spec.namespace} = ${load};`);
  return lines.length > 0 ? lines : [`${load};`];
}

/** The statements of one import, as `import` or as `require()` (a default one calls the helper `importLines` writes). */
export function importStatements(spec: TestImport, moduleKind: 'esm' | 'cjs'): string[] {
  return moduleKind === 'esm' ? esmImport(spec) : cjsImport(spec);
}

/** The import statements for `specs`, in order, as `import` or as `require()`; with require, the default-import helper first where one is used. */
export function importLines(specs: readonly TestImport[], moduleKind: 'esm' | 'cjs'): string[] {
  const helper = moduleKind === 'cjs' && specs.some((spec) => spec.default !== undefined) ? [...INTEROP_DEFAULT_SOURCE, ''] : [];
  return [...helper, ...specs.flatMap((spec) => importStatements(spec, moduleKind))];
}
