import type { DiagnosticsPort } from '../ports/checks';
import type { SymbolRef, Ticket } from '../schema/ticket';

/** A `refs` entry the ticket's words ask for: where it is named, and the entry to add. */
export interface RefSuggestion {
  /** The JSON path of the text that names it ($.acceptance[0].text). */
  path: string;
  ref: SymbolRef;
}

/** Past this many names, a ticket is prose about code, not a list of what it relies on: the rest is not looked up. */
const MAX_CANDIDATES = 40;

/** Source files a ref can point into. */
const SOURCE = /\.(c|m)?[tj]sx?$/;

/**
 * The names in a text that look like code: a dotted chain (`post.slug`, `Post.tags`), a
 * camelCase or PascalCase word (`createPost`, `Tag`), or any word called (`slugify(`). Plain
 * lowercase words are prose, unless called.
 */
function codeNames(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\s*\()?/g)) {
    const name = m[1]!;
    const called = m[2] !== undefined;
    if (name.includes('.') || called || /[a-z][A-Z]/.test(name) || /^[A-Z][a-z0-9]/.test(name)) out.push(name);
  }
  return out;
}

/** How a name may be spelled as a ref: as written, and `post.slug` as the type's `Post.slug`. */
function spellings(name: string): string[] {
  const [head, ...rest] = name.split('.');
  const typeHead = head!.charAt(0).toUpperCase() + head!.slice(1);
  return rest.length && typeHead !== head ? [name, [typeHead, ...rest].join('.')] : [name];
}

/**
 * The symbols and fields the ticket names in its title, description and acceptance criteria
 * that resolve in its scope's code but that `refs` does not list: each with the exact entry to
 * add. A name that resolves nowhere in scope (new code the ticket asks for, or prose) is not
 * suggested; `refs` that do not resolve are `validate`'s errors, not this.
 */
export async function suggestRefs(ticket: Ticket, diagnostics: Pick<DiagnosticsPort, 'resolveSymbol'>): Promise<RefSuggestion[]> {
  const listed = new Set(ticket.refs.map((r) => r.symbol));
  const files = [...new Set([...ticket.scope.write, ...ticket.scope.read])].filter((f) => SOURCE.test(f));
  const texts: [string, string][] = [
    ['$.title', ticket.title],
    ['$.description', ticket.description],
    ...ticket.acceptance.map((a, i): [string, string] => [`$.acceptance[${i}].text`, a.text]),
  ];
  const seen = new Set<string>();
  const out: RefSuggestion[] = [];
  for (const [path, text] of texts) {
    for (const name of codeNames(text)) {
      if (seen.size >= MAX_CANDIDATES) return out;
      if (seen.has(name)) continue;
      seen.add(name);
      const ref = await firstResolved(spellings(name), files, listed, diagnostics);
      if (ref) {
        listed.add(ref.symbol);
        out.push({ path, ref });
      }
    }
  }
  return out;
}

async function firstResolved(
  symbols: string[],
  files: string[],
  listed: ReadonlySet<string>,
  diagnostics: Pick<DiagnosticsPort, 'resolveSymbol'>,
): Promise<SymbolRef | undefined> {
  if (symbols.some((s) => listed.has(s))) return undefined;
  for (const symbol of symbols) {
    for (const file of files) {
      // A file the ticket is to create resolves nothing yet; a lookup that fails is no suggestion.
      const signature = await diagnostics.resolveSymbol(file, symbol).catch(() => null);
      if (signature !== null) return { symbol, file };
    }
  }
  return undefined;
}
