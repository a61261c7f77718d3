import type ts from 'typescript';
import type { OpEdit, OpResult } from '../../core/ports/ops';
import { applyTextChanges } from '../diagnostics/codeFixes';
import { alreadyApplied, fail, isDeclarableName, type OpInput, type OpOf } from './common';
import { describeError, newErrors } from './language';
import { lineOf, nearestName, topLevelDeclarations } from './syntax';

/**
 * renameSymbol: Tree-sitter finds the top-level declaration, the language service finds every
 * reference in the project and renames them all. The rename goes through re-exports and
 * imports (the ticket asked for the new name, not an alias), but a shorthand `{ name }` keeps
 * its property key: an object's shape is not the symbol's to change. Every file touched must
 * be in scope.write; a reference anywhere else fails the op with a scope addition.
 */
export async function renameSymbol(input: OpInput<OpOf<'renameSymbol'>>): Promise<OpResult> {
  const { op, file, abs, text, lang, scope } = input;
  if (!isDeclarableName(op.to)) return fail(`"${op.to}" is not a name a declaration can have`, 'give `to` a valid TypeScript identifier');
  const declared = await input.syntax.read(file, text, (root) =>
    topLevelDeclarations(root).map((d) => ({ name: d.name, start: d.nameNode.startIndex })),
  );
  const target = declared.find((d) => d.name === op.symbol);
  if (!target) {
    // Applying a rename twice: the old name is gone and the new one is there.
    if (declared.some((d) => d.name === op.to)) return alreadyApplied;
    const near = nearestName(
      op.symbol,
      declared.map((d) => d.name),
    );
    return fail(
      `${file} has no top-level declaration named ${op.symbol}`,
      near ? `did you mean ${near}?` : `name one of the file's declarations: ${declared.map((d) => d.name).join(', ') || '(none)'}`,
      near
        ? {
            proposal: {
              kind: 'opEdit',
              op: { ...op, symbol: near },
              summary: `rename ${near}, not ${op.symbol}, which ${file} does not declare`,
            },
          }
        : {},
    );
  }
  if (declared.some((d) => d.name === op.to)) {
    return fail(`${file} already declares ${op.to}: the rename would collide with it`, `pick a name ${file} does not use yet`);
  }
  const info = lang.service.getRenameInfo(abs, target.start, {});
  if (!info.canRename)
    return fail(`the language service cannot rename ${op.symbol}: ${info.localizedErrorMessage}`, 'rename it by hand, or drop the op');

  const locations = renameLocations(lang.service, abs, target.start);
  const byFile = new Map<string, ts.TextChange[]>();
  for (const l of locations) {
    const changes = byFile.get(l.fileName) ?? [];
    changes.push({ span: l.textSpan, newText: `${l.prefixText ?? ''}${op.to}${l.suffixText ?? ''}` });
    byFile.set(l.fileName, changes);
  }
  const files = [...byFile.keys()].map((f) => ({ abs: f, rel: lang.rel(f) }));
  const foreign = files.filter((f) => !lang.isWorkspaceFile(f.abs));
  if (foreign.length) {
    return fail(
      `${op.symbol} is also declared outside the workspace (${foreign.map((f) => f.rel).join(', ')}), which no run may change`,
      'drop the op: a library name cannot be renamed',
    );
  }
  const tests = files.filter((f) => scope.tests.includes(f.rel)).map((f) => f.rel);
  if (tests.length) {
    return fail(
      `the rendered tests still use ${op.symbol} (${tests.join(', ')}), and no op changes a test`,
      `write the test plan against the new name ${op.to}`,
    );
  }
  const outsideFiles = files.filter((f) => !scope.write.includes(f.rel)).sort((a, b) => a.rel.localeCompare(b.rel));
  if (outsideFiles.length) {
    const outside = outsideFiles.map((f) => f.rel);
    const first = outsideFiles[0]!;
    const line = lineOf(lang.text(first.abs) ?? '', Math.min(...byFile.get(first.abs)!.map((c) => c.span.start)));
    return fail(
      `renaming ${op.symbol} to ${op.to} must also change ${outside.join(', ')}, which scope.write does not list`,
      `add ${outside.join(', ')} to scope.write`,
      { at: { file: first.rel, line }, proposal: { kind: 'scopeAddition', paths: outside } },
    );
  }

  const after = new Map<string, string>();
  for (const [f, changes] of byFile) after.set(f, applyTextChanges(lang.text(f) ?? '', changes));
  const touched = [...after.keys()];
  const before = lang.errors(touched);
  const moved = movedLocations(locations, op.to);
  const check = lang.trial(after, () => {
    const reached = new Set(
      renameLocations(lang.service, abs, moved.get(abs)!.get(target.start)!).map((l) => `${l.fileName}\0${l.textSpan.start}`),
    );
    const lost = [...moved].flatMap(([f, starts]) =>
      [...starts.values()].filter((s) => !reached.has(`${f}\0${s}`)).map((s) => ({ file: lang.rel(f), line: lineOf(after.get(f)!, s) })),
    );
    return { errors: lang.errors(touched), lost };
  });
  const introduced = newErrors(before, check.errors);
  if (introduced.length) {
    return fail(
      `renaming ${op.symbol} to ${op.to} would bring errors: ${introduced.map(describeError).join('; ')}`,
      `pick a name that nothing in reach of ${op.symbol} uses yet`,
      {
        at: { file: introduced[0]!.file, line: introduced[0]!.line },
      },
    );
  }
  // A reference that no longer reaches the declaration was captured by a local of the new name.
  if (check.lost.length) {
    const where = check.lost.map((l) => `${l.file}:${l.line}`).join(', ');
    return fail(
      `after the rename, ${where} would refer to a local ${op.to} instead`,
      `pick a name that no local declaration in the touched files uses`,
      { at: check.lost[0] },
    );
  }
  const edits: OpEdit[] = touched.map((f) => ({ path: lang.rel(f), before: lang.text(f) ?? '', after: after.get(f)! }));
  return { ok: true, edits: edits.sort((a, b) => a.path.localeCompare(b.path)) };
}

/**
 * Where the new name starts, per file, for each location (by its old start): each earlier edit
 * in the file moves it, and a shorthand's `old: ` prefix comes before it.
 */
function movedLocations(locations: readonly ts.RenameLocation[], to: string): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  const shift = new Map<string, number>();
  for (const l of [...locations].sort((a, b) => a.textSpan.start - b.textSpan.start)) {
    const before = shift.get(l.fileName) ?? 0;
    const prefix = (l.prefixText ?? '').length;
    const starts = out.get(l.fileName) ?? new Map<number, number>();
    starts.set(l.textSpan.start, l.textSpan.start + before + prefix);
    out.set(l.fileName, starts);
    shift.set(l.fileName, before + prefix + to.length + (l.suffixText ?? '').length - l.textSpan.length);
  }
  return out;
}

/** Every place to rename, plain, except shorthand properties, which keep their key (`{ old: new }`). */
function renameLocations(service: ts.LanguageService, file: string, position: number): readonly ts.RenameLocation[] {
  const plain = service.findRenameLocations(file, position, false, false, { providePrefixAndSuffixTextForRename: false }) ?? [];
  const aliased = service.findRenameLocations(file, position, false, false, { providePrefixAndSuffixTextForRename: true }) ?? [];
  const shorthand = new Map(
    aliased
      .filter((l) => l.prefixText?.endsWith(': ') || l.suffixText?.startsWith(': '))
      .map((l) => [`${l.fileName}\0${l.textSpan.start}`, l]),
  );
  return plain.map((l) => shorthand.get(`${l.fileName}\0${l.textSpan.start}`) ?? l);
}
