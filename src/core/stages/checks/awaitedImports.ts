import type { CodeDiagnostic } from '../../schema/checks';
import type { Manifest } from '../../schema/manifest';
import { dirOf, normalizeRelPath } from '../../schema/paths';

/**
 * A test's type error that only says the change has not been made yet. A test written first
 * imports a module the ticket adds, or a name it is to export: before the Coder writes, the
 * compiler says the module or the export is missing. That is the ticket's work left to do, never
 * a fact that the test is wrong, so the wrong-test guard must not count it, even while a failing
 * Coder leaves it there. A missing module or export of a file outside `scope.write` still counts:
 * no change in scope can bring it.
 */

/** Cannot find module; no exported member (plain, with a suggestion, or a default one); declared but not exported. */
const IMPORT_CODES = new Set(['TS2307', 'TS2305', 'TS2724', 'TS2614', 'TS2459', 'TS2460']);

const EXTENSION = /\.(?:d\.)?[cm]?[jt]sx?$/;

/** A module path without its extension and without a trailing /index, as an import names it. */
const moduleKey = (p: string): string => p.replace(EXTENSION, '').replace(/\/index$/, '');

export function awaitsTheChange(d: CodeDiagnostic, manifest: Pick<Manifest, 'scope'>): boolean {
  if (!IMPORT_CODES.has(d.code)) return false;
  // The compiler quotes the module first: '../src/x', or '"../src/x"' (or its absolute path) for a missing export.
  const quoted = /'"?([^'"]+)"?'/.exec(d.message)?.[1];
  if (!quoted) return false;
  const named = moduleKey(quoted.startsWith('.') ? resolved(dirOf(d.file), quoted) : quoted.replace(/\\/g, '/'));
  return manifest.scope.write.some((w) => {
    const key = moduleKey(w.path);
    return named === key || named.endsWith(`/${key}`);
  });
}

function resolved(dir: string, specifier: string): string {
  try {
    return normalizeRelPath(dir ? `${dir}/${specifier}` : specifier);
  } catch {
    return specifier;
  }
}
