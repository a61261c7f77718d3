import type { CodeDiagnostic } from '../../schema/checks';
import type { TestImport } from '../../schema/testPlan';
import type { Ticket } from '../../schema/ticket';
import { normalizeRelPath } from '../../schema/paths';
import { withDeclarations } from '../ops/declared';

/**
 * A plan that tests what the ticket asks the Coder to write names code that is not there yet: a
 * module the ticket creates, a function it adds to a file it changes. Type-checked against the code
 * as it is, those names fail, and that is the normal case, not a problem of the plan. What counts
 * as asked for, from a type error on a test's import: a module that is not there, in `scope.write`;
 * a name that a file in `scope.write` does not export, which the ticket's words name (a name they
 * never mention is more likely a typo, or code that changed under the ticket). Each is laid over
 * the code as an untyped declaration for the check, so that what the tests do with it is not
 * reported either; anything else is still reported, on its import.
 */

const CODE_EXT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** Whether a text names an identifier, as a whole word. */
const named = (name: string, text: string): boolean => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);

/** The `scope.write` file a test file's import names, if the ticket writes it. */
export function writtenModule(testPath: string, from: string, write: readonly string[]): string | undefined {
  if (!from.startsWith('.')) return undefined;
  let target: string;
  try {
    target = normalizeRelPath(`${testPath.slice(0, testPath.lastIndexOf('/') + 1)}${from}`).replace(CODE_EXT, '');
  } catch {
    return undefined;
  }
  return write.find((w) => {
    const bare = w.replace(CODE_EXT, '');
    return bare === target || bare === `${target}/index`;
  });
}

/** What an import's type error says the ticket asks for: a name its words name, or the whole module. */
function missingNames(d: CodeDiagnostic, spec: TestImport, words: string): string[] | undefined {
  const name = /has no exported member(?: named)? '([^']+)'/.exec(d.message)?.[1];
  if (name) return named(name, words) ? [name] : undefined;
  if (/Cannot find module|is not a module/.test(d.message))
    return [...spec.names.map((n) => n.trim().split(/\s+as\s+/)[0]!), ...(spec.default === undefined ? [] : ['default'])];
  return undefined;
}

/** The names a plan's imports ask of files the ticket writes, by file, from the type errors on those imports. */
export function askedForNames(
  errors: readonly { d: CodeDiagnostic; importIndex: number }[],
  file: { path: string; imports: readonly TestImport[] },
  ticket: Pick<Ticket, 'title' | 'description' | 'acceptance' | 'scope'>,
): Map<string, Set<string>> {
  const words = [ticket.title, ticket.description, ...ticket.acceptance.map((a) => a.text)].join('\n');
  const asked = new Map<string, Set<string>>();
  for (const { d, importIndex } of errors) {
    const spec = file.imports[importIndex];
    const module = spec && writtenModule(file.path, spec.from, ticket.scope.write);
    const names = module && spec && missingNames(d, spec, words);
    if (!module || !names) continue;
    const set = asked.get(module) ?? new Set<string>();
    for (const n of names) set.add(n);
    asked.set(module, set);
  }
  return asked;
}

/** The overlays with each asked-for name declared, untyped, in its file (over what the overlays already hold). */
export async function withAskedFor(
  overlays: readonly { path: string; content: string }[],
  asked: ReadonlyMap<string, ReadonlySet<string>>,
  read: (path: string) => Promise<string | null>,
): Promise<{ path: string; content: string }[]> {
  const out = new Map(overlays.map((o) => [o.path, o.content]));
  for (const [module, names] of asked) {
    const base = out.get(module) ?? (await read(module));
    const plain = [...names].filter((n) => n !== 'default').map((n) => `const ${n}: any`);
    const withNames = withDeclarations(base, plain);
    // An ambient default export needs a name of its own to point at.
    const sep = withNames === '' || withNames.endsWith('\n') ? '' : '\n';
    const withDefault = `${withNames}${sep}declare const askedForDefault: any;\nexport default askedForDefault;\n`;
    out.set(module, names.has('default') ? withDefault : withNames);
  }
  return [...out].map(([path, content]) => ({ path, content }));
}

/** TypeScript's "implicitly has an 'any' type" errors: what an untyped stand-in brings on the code that uses it. */
const IMPLICIT_ANY = new Set(['TS7005', 'TS7006', 'TS7031', 'TS7034']);

/** Whether an error is the stand-in's doing, not the plan's: an implicit any in a part of the plan that names an asked-for name. */
export function fromStandIn(d: CodeDiagnostic, partText: string, asked: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  if (!IMPLICIT_ANY.has(d.code)) return false;
  const names = [...asked.values()].flatMap((s) => [...s]).filter((n) => n !== 'default');
  return names.some((n) => named(n, partText));
}
