/**
 * The cases of a test file, read from its text rather than from a run: how an authored test that
 * cannot load yet (it imports code the ticket is to add) still has its cases listed before the
 * Coder writes. Each case is named as the runners report it, its suites' names and its own.
 *
 * A case whose name is not a literal (a computed name, a table of `.each`, a template with a
 * placeholder) is not listed as "unnamed, count must match": the code under test runs in the
 * test's process and can register cases of its own, so a count is something it can forge. Such
 * a file is refused with the line and the fix instead.
 */

/** Calls that declare a suite: the cases inside them are named after it. */
const SUITES = new Set(['describe', 'suite', 'context', 'xdescribe', 'fdescribe', 'xcontext']);
/** Calls that declare a case. */
const CASES = new Set(['it', 'test', 'specify', 'xit', 'fit', 'xtest', 'xspecify']);
/** Modifiers a suite or a case may carry with its name still the first argument. */
const PLAIN_MODIFIERS = new Set(['only', 'skip', 'todo', 'concurrent', 'sequential', 'fails', 'shuffle']);

export interface SourceCases {
  /** Each case's suites' names and its own, outermost first. */
  cases: string[][];
  /** The calls whose name cannot be read without running the file, each with its line. */
  unreadable: { line: number; text: string }[];
}

interface Token {
  kind: 'word' | 'string' | 'template' | 'punct';
  text: string;
  /** A string's value; a template's when it has no placeholder. */
  value?: string;
  start: number;
}

export function sourceCases(source: string): SourceCases {
  const tokens = tokenize(source);
  const cases: string[][] = [];
  const unreadable: SourceCases['unreadable'] = [];
  // The suites the scan is inside, each with the paren depth its call opened at.
  const open: { name: string; depth: number }[] = [];
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
    const kind = t.kind === 'word' ? (SUITES.has(t.text) ? 'suite' : CASES.has(t.text) ? 'case' : undefined) : undefined;
    if (!kind || tokens[i - 1]?.text === '.' || isDeclared(tokens, i)) continue;
    let j = i + 1;
    let plain = true;
    while (tokens[j]?.text === '.' && tokens[j + 1]?.kind === 'word') {
      if (!PLAIN_MODIFIERS.has(tokens[j + 1]!.text)) plain = false;
      j += 2;
    }
    if (tokens[j]?.text !== '(') continue;
    const name = tokens[j + 1];
    const literal = plain && name?.value !== undefined && isArgumentEnd(tokens[j + 2]);
    if (!literal) {
      unreadable.push({ line: lineOf(source, t.start), text: source.slice(t.start, (tokens[j + 2] ?? name ?? t).start).trim() });
      continue;
    }
    if (kind === 'case') cases.push([...open.map((s) => s.name), name.value!]);
    else open.push({ name: name.value!, depth: depth + 1 });
  }
  return { cases, unreadable };
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
