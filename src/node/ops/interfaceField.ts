import type { OpResult } from '../../core/ports/ops';
import {
  alreadyApplied,
  fail,
  finishEdit,
  indentAt,
  isIdentifierText,
  sameTypeText,
  splice,
  typeText,
  type OpInput,
  type OpOf,
} from './common';
import { hasToken, nearestName, topLevelDeclarations, type SyntaxNode } from './syntax';

interface Member {
  name: string;
  kind: string;
  start: number;
  end: number;
  nameEnd: number;
  /** The type annotation without its colon, and where the annotation ends. */
  type?: { text: string; end: number };
  optional: boolean;
  /** The `;` or `,` right after the member, if any. */
  separator?: { text: string; end: number };
}

interface InterfaceInfo {
  start: number;
  body: { start: number; end: number };
  members: Member[];
}

const unquote = (s: string) => s.replace(/^(['"])(.*)\1$/, '$2');

function readMember(node: SyntaxNode): Member {
  const name = node.childForFieldName('name');
  const type = node.childForFieldName('type');
  const next = node.nextSibling;
  return {
    name: unquote(name?.text ?? ''),
    kind: node.type,
    start: node.startIndex,
    end: node.endIndex,
    nameEnd: name?.endIndex ?? node.startIndex,
    type: type ? { text: type.text.replace(/^:\s*/, ''), end: type.endIndex } : undefined,
    optional: hasToken(node, '?'),
    separator: next && !next.isNamed && (next.type === ';' || next.type === ',') ? { text: next.type, end: next.endIndex } : undefined,
  };
}

function readInterface(node: SyntaxNode): InterfaceInfo | undefined {
  const body = node.childForFieldName('body');
  if (!body) return undefined;
  return {
    start: node.startIndex,
    body: { start: body.startIndex, end: body.endIndex },
    members: body.namedChildren.filter((m) => m.type !== 'comment').map(readMember),
  };
}

/** A field name as it is written in a type: quoted when it is not an identifier. */
const fieldKey = (name: string) => (isIdentifierText(name) ? name : `'${name.replace(/'/g, "\\'")}'`);

/**
 * setInterfaceField: adds the field to the interface, or changes the type or optionality of the
 * one that is there (keeping its `readonly` and its place). The same field, type and optionality
 * already in place write nothing. A new field goes after the last member, in its indentation
 * and with its separator.
 */
export async function setInterfaceField(input: OpInput<OpOf<'setInterfaceField'>>): Promise<OpResult> {
  const { op, file, text } = input;
  const type = typeText(op.type);
  const found = await input.syntax.read(file, text, (root) => {
    const declared = topLevelDeclarations(root);
    // Declaration merging: the block that already has the field, else the first one.
    const blocks = declared.filter((d) => d.kind === 'interface' && d.name === op.interface).map((d) => readInterface(d.node));
    const interfaces = blocks.filter((b): b is InterfaceInfo => !!b);
    return {
      target: interfaces.find((b) => b.members.some((m) => m.name === op.field)) ?? interfaces[0],
      otherKind: declared.find((d) => d.name === op.interface)?.kind,
      names: declared.filter((d) => d.kind === 'interface').map((d) => d.name),
    };
  });
  if (!found.target) {
    if (found.otherKind)
      return fail(
        `${op.interface} in ${file} is a ${found.otherKind}, not an interface`,
        `make ${op.interface} an interface first, or change the type by hand`,
      );
    const near = nearestName(op.interface, found.names);
    return fail(
      `${file} declares no interface ${op.interface}`,
      near ? `did you mean ${near}?` : `name one of its interfaces: ${found.names.join(', ') || '(none)'}`,
      near
        ? {
            proposal: {
              kind: 'opEdit',
              op: { ...op, interface: near },
              summary: `set the field on ${near}, not ${op.interface}, which ${file} does not declare`,
            },
          }
        : {},
    );
  }
  const { target } = found;
  const existing = target.members.find((m) => m.name === op.field);
  const annotation = `${op.optional ? '?' : ''}: ${type}`;
  if (existing) {
    if (existing.kind !== 'property_signature')
      return fail(
        `${op.interface}.${op.field} is a ${existing.kind.replace(/_/g, ' ')}, not a field`,
        'change it by hand, or pick another field name',
      );
    if (existing.type && sameTypeText(existing.type.text, type) && existing.optional === op.optional) return alreadyApplied;
    const end = existing.type?.end ?? existing.end;
    const after = splice(text, existing.nameEnd, end, annotation);
    return finishEdit(
      input,
      after,
      { start: existing.start, end: existing.nameEnd + annotation.length },
      `the field ${op.interface}.${op.field}`,
    );
  }
  const field = `${fieldKey(op.field)}${annotation}`;
  const last = target.members[target.members.length - 1];
  if (!last) {
    const indent = indentAt(text, target.start);
    const body = `{\n${indent}  ${field};\n${indent}}`;
    const after = splice(text, target.body.start, target.body.end, body);
    const start = target.body.start + body.indexOf(field);
    return finishEdit(input, after, { start, end: start + field.length }, `the field ${op.interface}.${op.field}`);
  }
  const multiline = text.slice(target.body.start, target.body.end).includes('\n');
  const separator = last.separator?.text ?? (multiline ? '' : ';');
  const at = last.separator?.end ?? last.end;
  // A one-line body whose last member has no separator needs one before the new field.
  const lead = last.separator || multiline ? '' : ';';
  const insert = multiline ? `\n${indentAt(text, last.start)}${field}${separator}` : `${lead} ${field}${separator}`;
  const after = splice(text, at, at, insert);
  const start = at + insert.indexOf(field);
  return finishEdit(input, after, { start, end: start + field.length }, `the field ${op.interface}.${op.field}`);
}
