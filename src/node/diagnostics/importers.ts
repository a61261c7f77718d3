import ts from 'typescript';

/**
 * The workspace files that import any of `targets` directly (one level: an importer of an
 * importer is not included). Resolution goes through the program's own checker, so it agrees
 * with the diagnostics about which file a specifier names. Only static imports and re-exports
 * at the top level count: a dynamic `import()` is not seen.
 */
export function directImporters(program: ts.Program, targets: ReadonlySet<string>): Set<string> {
  const checker = program.getTypeChecker();
  const importers = new Set<string>();
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || program.isSourceFileFromExternalLibrary(sf) || targets.has(sf.fileName)) continue;
    for (const specifier of moduleSpecifiers(sf)) {
      const declaration = checker.getSymbolAtLocation(specifier)?.valueDeclaration;
      if (declaration && ts.isSourceFile(declaration) && targets.has(declaration.fileName)) {
        importers.add(sf.fileName);
        break;
      }
    }
  }
  return importers;
}

function* moduleSpecifiers(sf: ts.SourceFile): Generator<ts.Expression> {
  for (const statement of sf.statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier) {
      yield statement.moduleSpecifier;
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)) {
      yield statement.moduleReference.expression;
    }
  }
}
