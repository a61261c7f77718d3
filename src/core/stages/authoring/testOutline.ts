/**
 * What a test file declares, read from its text alone: its suites, its cases and the modules it
 * imports. No language service: the code lens and the draft it offers must stay cheap, and the
 * file may import a module that does not exist yet, which a type-checker would stumble over.
 */

/** A case of the file: its name, with the names of the suites around it, outermost first. */
export interface OutlinedCase {
  name: string;
  suites: string[];
}

export interface TestOutline {
  /** The names of the suites at the top of the file, in order. */
  topSuites: string[];
  /** Every case whose name is a string literal, in order. */
  cases: OutlinedCase[];
  /** How many `test(`/`it(` calls have a name computed at run time (a variable, a template with `${}`). */
  unnamedCases: number;
  /** Every module specifier the file imports or requires, in order, once each. */
  imports: string[];
}

const SUITE_CALLS = new Set(['describe', 'suite', 'context']);
const CASE_CALLS = new Set(['test', 'it']);
/** The modifiers a runner reads between the call's name and its parenthesis: the first runs it, the others make it no work to do. */
const RUN_MODIFIERS = new Set(['only']);
const SKIP_MODIFIERS = new Set(['skip', 'todo']);
/** After these a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set(['return', 'typeof', 'case', 'in', 'of', 'delete', 'void', 'throw', 'new', 'await', 'yield']);

type Token = { kind: 'id' | 'str' | 'punct'; value: string; computed?: boolean };

/** Reads the suites, cases and imports of a test file's text. */
export function outlineTest(text: string): TestOutline {
  const outline: TestOutline = { topSuites: [], cases: [], unnamedCases: 0, imports: [] };
  const tokens = tokenize(text);
  const open: { name: string; depth: number; skipped: boolean }[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'punct' && t.value === ')') {
      depth--;
      while (open.length && open[open.length - 1]!.depth > depth) open.pop();
      continue;
    }
    if (t.kind === 'str') {
      const spec = importedBy(tokens, i);
      if (spec !== undefined && !outline.imports.includes(spec)) outline.imports.push(spec);
      continue;
    }
    if (t.kind !== 'punct' || t.value !== '(') continue;
    depth++;
    const call = calleeBefore(tokens, i);
    if (!call) continue;
    const first = tokens[i + 1];
    const named = first?.kind === 'str' && !first.computed ? first.value : undefined;
    const skipped = call.skipped || open.some((s) => s.skipped);
    if (call.kind === 'suite' && named !== undefined) {
      if (!open.length && !skipped) outline.topSuites.push(named);
      open.push({ name: named, depth, skipped });
    } else if (call.kind === 'case' && !skipped) {
      if (named === undefined) outline.unnamedCases++;
      else outline.cases.push({ name: named, suites: open.map((s) => s.name) });
    }
  }
  return outline;
}

/** Whether the `(` at `at` calls a suite or a case, and skips it: `describe(`, `it.only(`, `it.skip(`, never `obj.test(`. */
function calleeBefore(tokens: readonly Token[], at: number): { kind: 'suite' | 'case'; skipped: boolean } | undefined {
  let i = at - 1;
  let modifier: string | undefined;
  if (tokens[i]?.kind === 'id' && tokens[i - 1]?.value === '.' && tokens[i - 2]?.kind === 'id') {
    modifier = tokens[i]!.value;
    i -= 2;
  }
  const name = tokens[i];
  if (name?.kind !== 'id' || tokens[i - 1]?.value === '.') return undefined;
  const kind = SUITE_CALLS.has(name.value) ? 'suite' : CASE_CALLS.has(name.value) ? 'case' : undefined;
  if (!kind || (modifier !== undefined && !RUN_MODIFIERS.has(modifier) && !SKIP_MODIFIERS.has(modifier))) return undefined;
  return { kind, skipped: modifier !== undefined && SKIP_MODIFIERS.has(modifier) };
}

/** The specifier when the string at `at` is one: `from '…'`, `import '…'`, `import('…')`, `require('…')`. */
function importedBy(tokens: readonly Token[], at: number): string | undefined {
  const t = tokens[at]!;
  if (t.computed) return undefined;
  const before = tokens[at - 1];
  if (before?.kind === 'id' && (before.value === 'from' || before.value === 'import')) return t.value;
  const callee = tokens[at - 2];
  if (before?.value === '(' && callee?.kind === 'id' && (callee.value === 'require' || callee.value === 'import')) {
    return tokens[at - 3]?.value === '.' ? undefined : t.value;
  }
  return undefined;
}

/**
 * The file as identifiers, string literals and punctuation, with comments, regular expressions and
 * the code inside template literals left out: enough to find calls and their first argument.
 */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      const { value, end } = quoted(text, i);
      tokens.push({ kind: 'str', value });
      i = end;
    } else if (c === '`') {
      const { value, end, computed } = template(text, i);
      tokens.push({ kind: 'str', value, computed });
      i = end;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[\w$]+/.exec(text.slice(i, i + 200))!;
      tokens.push({ kind: 'id', value: m[0] });
      i += m[0].length;
    } else if (/\d/.test(c)) {
      i += /^[\w.]+/.exec(text.slice(i, i + 100))![0].length;
      tokens.push({ kind: 'id', value: '0' });
    } else if (c === '/' && startsRegex(tokens[tokens.length - 1])) {
      i = regexEnd(text, i);
      tokens.push({ kind: 'id', value: '/regex/' });
    } else {
      if (!/\s/.test(c)) tokens.push({ kind: 'punct', value: c });
      i++;
    }
  }
  return tokens;
}

/** A quoted string from its opening quote: its value (escapes taken as the character they escape) and where it ends. */
function quoted(text: string, start: number): { value: string; end: number } {
  const q = text[start]!;
  let value = '';
  let i = start + 1;
  while (i < text.length && text[i] !== q && text[i] !== '\n') {
    if (text[i] === '\\') i++;
    value += text[i] ?? '';
    i++;
  }
  return { value, end: i + 1 };
}

/** A template literal from its backtick: its text, where it ends, and whether a `${}` makes it computed. */
function template(text: string, start: number): { value: string; end: number; computed: boolean } {
  let value = '';
  let computed = false;
  let i = start + 1;
  while (i < text.length && text[i] !== '`') {
    if (text[i] === '\\') {
      value += text[i + 1] ?? '';
      i += 2;
    } else if (text[i] === '$' && text[i + 1] === '{') {
      computed = true;
      let braces = 1;
      i += 2;
      while (i < text.length && braces) {
        if (text[i] === '{') braces++;
        else if (text[i] === '}') braces--;
        i++;
      }
    } else value += text[i++];
  }
  return { value, end: i + 1, computed };
}

/** A `/` after an operator, an opening bracket or a keyword such as `return` starts a regular expression. */
function startsRegex(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === 'str') return false;
  if (previous.kind === 'id') return BEFORE_REGEX.has(previous.value);
  return !/[)\]}]/.test(previous.value);
}

/** Where a regular expression literal ends, its flags included: a `/` in a character class does not end it. */
function regexEnd(text: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < text.length && text[i] !== '\n') {
    const c = text[i]!;
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) break;
    i++;
  }
  i++;
  while (i < text.length && /[a-z]/i.test(text[i]!)) i++;
  return i;
}
