import ts from 'typescript';

/**
 * The fixes autofix applies by default: the structural ones, whose result does not depend on
 * what the code means. Matched against a fix's fixName or fixId. Never in the list, whatever
 * the caller asks: the fixes that silence a diagnostic instead of fixing it.
 */
export const STRUCTURAL_FIXES: readonly string[] = [
  'import', // missing import (fixId fixMissingImport)
  'fixMissingImport',
  'spelling', // misspelled name (fixId fixSpelling)
  'fixSpelling',
  'addMissingAwait', // missing await (a use of the value, or its initializer)
  'addMissingAwaitToInitializer',
  'addMissingAsync',
  'fixAwaitInSyncFunction',
  'fixImportNonExportedMember', // export the imported name from its module
  'addMissingConst',
  'addMissingNewOperator',
  'fixMissingCallParentheses',
  'forgottenThisPropertyAccess',
];

const SILENCING_FIXES = new Set(['disableJsDiagnostics', 'fixDisableJsDiagnostics']);

export function isWantedFix(fix: ts.CodeFixAction, wanted: ReadonlySet<string>): boolean {
  if (SILENCING_FIXES.has(fix.fixName)) return false;
  // A command (install @types, say) is work outside the text edits, which are all we apply.
  if (fix.commands?.length) return false;
  return wanted.has(fix.fixName) || (typeof fix.fixId === 'string' && wanted.has(fix.fixId));
}

/** The module an "Add import from ..." fix imports from, when the fix is an import. */
function importSpecifier(fix: ts.CodeFixAction): string | undefined {
  return /^(?:Add|Update) import from "([^"]+)"/.exec(fix.description)?.[1];
}

/**
 * Orders the fixes for one diagnostic: an import from a folder's barrel (".", "..", "x/index")
 * goes last. A barrel that also re-exports the importing module makes a circular import, whose
 * binding can still be undefined when the module runs: the declaring module is the safe choice.
 */
export function rankFixes(fixes: readonly ts.CodeFixAction[]): ts.CodeFixAction[] {
  const barrel = (f: ts.CodeFixAction) => {
    const spec = importSpecifier(f);
    return spec !== undefined && /(^\.{1,2}$|\/\.{0,2}$|\/index(\.[cm]?[jt]sx?)?$)/.test(spec) ? 1 : 0;
  };
  return fixes
    .map((f, i) => ({ f, i }))
    .sort((a, b) => barrel(a.f) - barrel(b.f) || a.i - b.i)
    .map(({ f }) => f);
}

/**
 * Applies one file's edits. Spans refer to the original text, so the last edit goes first; two
 * insertions at one position go last-listed first, so they end up in the order listed.
 */
export function applyTextChanges(text: string, changes: readonly ts.TextChange[]): string {
  const backwards = changes
    .map((change, index) => ({ change, index }))
    .sort((a, b) => b.change.span.start - a.change.span.start || b.index - a.index);
  let out = text;
  for (const { change } of backwards) {
    out = out.slice(0, change.span.start) + change.newText + out.slice(change.span.start + change.span.length);
  }
  return out;
}
