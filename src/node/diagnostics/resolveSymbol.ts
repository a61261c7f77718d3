import ts from 'typescript';

const TYPE_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/**
 * The type text of `Name` or `Name.member.member` declared in (or exported from) `sf`, or null.
 * A bare interface or class is spelled out member by member, because its name alone says
 * nothing a caller could check a test against.
 */
export function resolveSymbolType(program: ts.Program, sf: ts.SourceFile, path: string): string | null {
  const [head, ...members] = path.split('.');
  if (!head) return null;
  const checker = program.getTypeChecker();
  const symbol = findSymbol(checker, sf, head);
  if (!symbol) return null;
  const isType = (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Enum)) !== 0;
  let type = isType ? checker.getDeclaredTypeOfSymbol(symbol) : checker.getTypeOfSymbol(symbol);
  if (members.length === 0) return isType ? describeDeclaredType(checker, symbol, type) : checker.typeToString(type, undefined, TYPE_FLAGS);
  for (const member of members) {
    const property = checker.getPropertyOfType(checker.getApparentType(checker.getNonNullableType(type)), member);
    if (!property) return null;
    type = checker.getTypeOfSymbol(property);
  }
  return checker.typeToString(type, undefined, TYPE_FLAGS);
}

function findSymbol(checker: ts.TypeChecker, sf: ts.SourceFile, name: string): ts.Symbol | undefined {
  for (const statement of sf.statements) {
    for (const declared of declaredNames(statement)) {
      if (declared.text === name) return checker.getSymbolAtLocation(declared);
    }
  }
  // A name the file only re-exports (`export { Post } from './types'`) resolves to its origin.
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
  if (!exported) return undefined;
  return exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
}

function declaredNames(statement: ts.Statement): ts.Identifier[] {
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name] : []));
  }
  if (
    ts.isInterfaceDeclaration(statement) ||
    ts.isTypeAliasDeclaration(statement) ||
    ts.isClassDeclaration(statement) ||
    ts.isEnumDeclaration(statement) ||
    ts.isFunctionDeclaration(statement)
  ) {
    return statement.name ? [statement.name] : [];
  }
  return [];
}

function describeDeclaredType(checker: ts.TypeChecker, symbol: ts.Symbol, type: ts.Type): string {
  if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class))) {
    // InTypeAlias spells out the alias's body instead of printing its name back.
    return checker.typeToString(type, undefined, TYPE_FLAGS | ts.TypeFormatFlags.InTypeAlias);
  }
  const members = checker.getPropertiesOfType(type).map((p) => {
    const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
    return `${p.name}${optional}: ${checker.typeToString(checker.getTypeOfSymbol(p), undefined, TYPE_FLAGS)}`;
  });
  return members.length === 0 ? '{}' : `{ ${members.join('; ')} }`;
}
