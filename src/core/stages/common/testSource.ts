/**
 * What a test file declares, read from its text alone: its suites and cases, named as the runners
 * report them (its suites' names and its own), whether each is skipped, and the modules it
 * imports. No language service and no run: an authored test that cannot load yet (it imports
 * code the ticket is to add) still has its cases listed before the Coder writes, and the editor's
 * code lens and the ticket it drafts from a test stay cheap. The one reader of a test's text.
 *
 * A case whose name is not a literal (a computed name, a table of `.each`, a template with a
 * placeholder) is reported as unreadable with its line, never as "unnamed, count must match": the
 * code under test runs in the test's process and can register cases of its own, so a count is
 * something it can forge.
 */

/** Calls that declare a suite: the cases inside them are named after it. */
const SUITES = new Set(['describe', 'suite', 'context', 'xdescribe', 'fdescribe', 'xcontext']);
/** Calls that declare a case. */
const CASES = new Set(['it', 'test', 'specify', 'xit', 'fit', 'xtest', 'xspecify']);
/** Modifiers a suite or a case may carry with its name still the first argument. */
const PLAIN_MODIFIERS = new Set(['only', 'skip', 'todo', 'concurrent', 'sequential', 'fails', 'shuffle']);
/** The modifiers and the names that leave a suite or a case declared but not run. */
const SKIP_MODIFIERS = new Set(['skip', 'todo']);
const SKIPPED_NAMES = new Set(['xdescribe', 'xcontext', 'xit', 'xtest', 'xspecify']);

export interface SourceCase {
  /** Its suites' names and its own, outermost first. */
  names: string[];
  /** It, or a suite around it, is declared with `.skip`, `.todo` or an `x` name: the runner reports it skipped. */
  skipped: boolean;
  line: number;
}

export interface TestSource {
  cases: SourceCase[];
  /** The names of the suites at the file's top, not skipped, in order. */
  topSuites: string[];
  /** The calls whose name cannot be read without running the file, each with its line. */
  unreadable: { kind: 'suite' | 'case'; line: number; text: string }[];
  /** Every module specifier the file imports or requires, in order, once each. */
  imports: string[];
}

interface Token {
  kind: 'word' | 'string' | 'template' | 'punct';
  text: string;
  /** A string's value; a template's when it has no placeholder. */
  value?: string;
  start: number;
}

export function readTestSource(source: string): TestSource {
  const tokens = tokenize(source);
  const out: TestSource = { cases: [], topSuites: [], unreadable: [], imports: [] };
  // The suites the scan is inside, each with the paren depth its call opened at.
  const open: { name: string; depth: number; skipped: boolean }[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'punct') {
      if (t.text === '(') depth++;
      if (t.text === ')') {
        depth--;
        while (open.length && open[open.length - 1]!.depth > depth) open.pop();
      }
      continue;
    }
    if (t.kind === 'string') {
      const spec = importedBy(tokens, i);
      if (spec !== undefined && !out.imports.includes(spec)) out.imports.push(spec);
      continue;
    }
    const kind = t.kind === 'word' ? (SUITES.has(t.text) ? 'suite' : CASES.has(t.text) ? 'case' : undefined) : undefined;
    if (!kind || tokens[i - 1]?.text === '.' || isDeclared(tokens, i)) continue;
    let j = i + 1;
    let plain = true;
    let skipped = SKIPPED_NAMES.has(t.text) || open.some((s) => s.skipped);
    while (tokens[j]?.text === '.' && tokens[j + 1]?.kind === 'word') {
      const modifier = tokens[j + 1]!.text;
      if (!PLAIN_MODIFIERS.has(modifier)) plain = false;
      if (SKIP_MODIFIERS.has(modifier)) skipped = true;
      j += 2;
    }
    if (tokens[j]?.text !== '(') continue;
    const name = tokens[j + 1];
    const literal = plain && name?.value !== undefined && isArgumentEnd(tokens[j + 2]);
    const line = lineOf(source, t.start);
    if (!literal) {
      out.unreadable.push({ kind, line, text: source.slice(t.start, (tokens[j + 2] ?? name ?? t).start).trim() });
      continue;
    }
    if (kind === 'case') out.cases.push({ names: [...open.map((s) => s.name), name.value!], skipped, line });
    else {
      if (!open.length && !skipped) out.topSuites.push(name.value!);
      open.push({ name: name.value!, depth: depth + 1, skipped });
    }
  }
  return out;
}

/** The specifier when the string at `at` is one: `from '…'`, `import '…'`, `import('…')`, `require('…')`. */
function importedBy(tokens: readonly Token[], at: number): string | undefined {
  const value = tokens[at]!.value;
  const before = tokens[at - 1];
  if (before?.kind === 'word' && (before.text === 'from' || before.text === 'import')) return value;
  const callee = tokens[at - 2];
  if (before?.text === '(' && callee?.kind === 'word' && (callee.text === 'require' || callee.text === 'import'))
    return tokens[at - 3]?.text === '.' ? undefined : value;
  return undefined;
}

/** `function test(`, `const it =`: the project's own name, not a runner's call. */
function isDeclared(tokens: readonly Token[], i: number): boolean {
  const before = tokens[i - 1]?.text;
  return before === 'function' || before === 'const' || before === 'let' || before === 'var';
}

const isArgumentEnd = (t: Token | undefined): boolean => t?.text === ',' || t?.text === ')';

const lineOf = (source: string, at: number): number => source.slice(0, at).split('\n').length;

/** Where a `/` starts a regular expression rather than a division: after these, or at the start. */
const BEFORE_REGEX = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', 'return', 'typeof', '=>']);

/** Words, string and template literals and single punctuation, with comments and regular expressions left out. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (source.startsWith('//', i)) {
      i = endOf(source, '\n', i);
    } else if (source.startsWith('/*', i)) {
      i = endOf(source, '*/', i + 2);
    } else if (c === '"' || c === "'") {
      const end = quotedEnd(source, i, c);
      tokens.push({ kind: 'string', text: source.slice(i, end), value: unescape(source.slice(i + 1, end - 1)), start: i });
      i = end;
    } else if (c === '`') {
      const end = templateEnd(source, i);
      const body = source.slice(i + 1, end - 1);
      tokens.push({ kind: 'template', text: source.slice(i, end), ...(body.includes('${') ? {} : { value: unescape(body) }), start: i });
      i = end;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[\w$]+/.exec(source.slice(i))![0];
      tokens.push({ kind: 'word', text: m, start: i });
      i += m.length;
    } else if (c === '/' && (tokens.length === 0 || BEFORE_REGEX.has(tokens[tokens.length - 1]!.text))) {
      i = regexEnd(source, i);
    } else {
      const arrow = source.startsWith('=>', i);
      tokens.push({ kind: 'punct', text: arrow ? '=>' : c, start: i });
      i += arrow ? 2 : 1;
    }
  }
  return tokens;
}

function endOf(source: string, close: string, from: number): number {
  const at = source.indexOf(close, from);
  return at < 0 ? source.length : at + close.length;
}

function quotedEnd(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length && source[i] !== quote && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The end of a template literal, over any placeholder's code (which may hold strings and templates of its own). */
function templateEnd(source: string, start: number): number {
  let i = start + 1;
  while (i < source.length && source[i] !== '`') {
    if (source[i] === '\\') i += 2;
    else if (source.startsWith('${', i)) i = placeholderEnd(source, i + 2);
    else i++;
  }
  return i + 1;
}

function placeholderEnd(source: string, from: number): number {
  let braces = 1;
  let i = from;
  while (i < source.length && braces > 0) {
    const c = source[i]!;
    if (c === '"' || c === "'") i = quotedEnd(source, i, c);
    else if (c === '`') i = templateEnd(source, i);
    else {
      if (c === '{') braces++;
      if (c === '}') braces--;
      i++;
    }
  }
  return i;
}

function regexEnd(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length && source[i] !== '\n') {
    const c = source[i]!;
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) break;
    i++;
  }
  return i + 1;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0' };

function unescape(body: string): string {
  return body.replace(/\\(u\{[\da-fA-F]+\}|u[\da-fA-F]{4}|x[\da-fA-F]{2}|\n|.)/g, (_, e: string) => {
    if (e === '\n') return '';
    if (e.startsWith('u{')) return String.fromCodePoint(parseInt(e.slice(2, -1), 16));
    if ((e.startsWith('u') || e.startsWith('x')) && e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    return ESCAPES[e] ?? e;
  });
}
