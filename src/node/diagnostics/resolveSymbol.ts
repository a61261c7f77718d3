import ts from 'typescript';

const TYPE_FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/**
 * The type text of `Name` or `Name.member.member` declared in (or exported from) `sf`, or null.
 * A bare interface or class is spelled out member by member, because its name alone says
 * nothing a caller could check a test against.
 */
export function resolveSymbolType(program: ts.Program, sf: ts.SourceFile, path: string): string | null {
  const checker = program.getTypeChecker();
  const found = typeAt(checker, sf, path);
  if (!found) return null;
  if (found.symbol)
    return found.isType ? describeDeclaredType(checker, found.symbol, found.type) : checker.typeToString(found.type, undefined, TYPE_FLAGS);
  return checker.typeToString(found.type, undefined, TYPE_FLAGS);
}

/**
 * What a ticket's `refs` may name in `sf`: its exports when `owner` is absent, else the members
 * of `owner` (`Type` or `Type.member`), each with its type text.
 */
export function listSymbols(program: ts.Program, sf: ts.SourceFile, owner?: string): { name: string; type: string }[] {
  const checker = program.getTypeChecker();
  if (owner === undefined) {
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    const exported = moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
    return exported.map((s) => ({ name: s.name, type: resolveSymbolType(program, sf, s.name) ?? '' }));
  }
  const found = typeAt(checker, sf, owner);
  if (!found) return [];
  return checker
    .getPropertiesOfType(checker.getApparentType(checker.getNonNullableType(found.type)))
    .map((p) => ({ name: p.name, type: checker.typeToString(checker.getTypeOfSymbol(p), undefined, TYPE_FLAGS) }));
}

/** The type at `Name` or `Name.member...`; `symbol` is set for the bare name alone. */
function typeAt(
  checker: ts.TypeChecker,
  sf: ts.SourceFile,
  path: string,
): { type: ts.Type; symbol?: ts.Symbol; isType: boolean } | undefined {
  const [head, ...members] = path.split('.');
  if (!head) return undefined;
  const symbol = findSymbol(checker, sf, head);
  if (!symbol) return undefined;
  const isType = (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Enum)) !== 0;
  let type = isType ? checker.getDeclaredTypeOfSymbol(symbol) : checker.getTypeOfSymbol(symbol);
  if (members.length === 0) return { type, symbol, isType };
  for (const [i, member] of members.entries()) {
    // Past a class or an enum's name, a member is also one of its value: a static member, an enum member.
    const property =
      memberOf(checker, type, member) ??
      (i === 0 && isType && symbol.flags & ts.SymbolFlags.Value ? memberOf(checker, checker.getTypeOfSymbol(symbol), member) : undefined);
    if (!property) return undefined;
    type = checker.getTypeOfSymbol(property);
  }
  return { type, isType: false };
}

function memberOf(checker: ts.TypeChecker, type: ts.Type, name: string): ts.Symbol | undefined {
  return checker.getPropertyOfType(checker.getApparentType(checker.getNonNullableType(type)), name);
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
  if (ts.isModuleDeclaration(statement) && ts.isIdentifier(statement.name)) return [statement.name];
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
