import type { OpResult } from '../../core/ports/ops';
import { alreadyApplied, fail, finishEdit, sameTypeText, splice, typeText, type OpInput, type OpOf } from './common';
import { nearestName, topLevelDeclarations, type Declaration, type SyntaxNode } from './syntax';

/**
 * Where an annotation goes: `replace` is the existing annotation's range (colon included),
 * or an empty range where a new one is inserted. `wrap` is a bare arrow parameter (`x => …`),
 * which needs parentheses before it can carry a type.
 */
interface Slot {
  replace: { start: number; end: number };
  current?: string;
  wrap?: { start: number; end: number; name: string; as: 'parameter' | 'return' };
}

type Target = { ok: true; slot: Slot; what: string } | { ok: false; reason: string; suggestion: string; near?: string };

function slotOf(annotationOwner: SyntaxNode, insertAt: number): Slot {
  const ann = annotationOwner.childForFieldName('type') ?? annotationOwner.childForFieldName('return_type');
  return ann
    ? { replace: { start: ann.startIndex, end: ann.endIndex }, current: ann.text.replace(/^:\s*/, '') }
    : { replace: { start: insertAt, end: insertAt } };
}

/** The function behind a declaration: a function declaration, or a variable holding an arrow or function expression. */
function functionNode(d: Declaration): SyntaxNode | undefined {
  if (d.kind === 'function') return d.node;
  const value = d.kind === 'variable' ? d.node.childForFieldName('value') : null;
  return value && ['arrow_function', 'function_expression', 'function'].includes(value.type) ? value : undefined;
}

function parameterSlot(fn: SyntaxNode, name: string): Target {
  const bare = fn.childForFieldName('parameter');
  if (bare) {
    if (bare.text !== name)
      return { ok: false, reason: `its only parameter is ${bare.text}`, suggestion: `did you mean ${bare.text}?`, near: bare.text };
    return {
      ok: true,
      what: `the parameter ${name}`,
      slot: {
        replace: { start: bare.endIndex, end: bare.endIndex },
        wrap: { start: bare.startIndex, end: bare.endIndex, name, as: 'parameter' },
      },
    };
  }
  const params = (fn.childForFieldName('parameters')?.namedChildren ?? []).filter(
    (p) => p.type === 'required_parameter' || p.type === 'optional_parameter',
  );
  const names = params.map((p) => p.childForFieldName('pattern')?.text ?? '');
  const param = params.find((p) => p.childForFieldName('pattern')?.type === 'identifier' && p.childForFieldName('pattern')?.text === name);
  if (!param) {
    const near = nearestName(name, names);
    return {
      ok: false,
      reason: `it has no parameter ${name} (its parameters: ${names.join(', ') || 'none'})`,
      suggestion: near ? `did you mean ${near}?` : 'name one of its parameters',
      near,
    };
  }
  const pattern = param.childForFieldName('pattern')!;
  // An optional parameter's `?` sits between its name and its type.
  const question = param.children.find((c) => !c.isNamed && c.type === '?');
  return { ok: true, what: `the parameter ${name}`, slot: slotOf(param, (question ?? pattern).endIndex) };
}

function returnSlot(fn: SyntaxNode): Target {
  const bare = fn.childForFieldName('parameter');
  if (bare)
    return {
      ok: true,
      what: 'the return type',
      slot: {
        replace: { start: bare.endIndex, end: bare.endIndex },
        wrap: { start: bare.startIndex, end: bare.endIndex, name: bare.text, as: 'return' },
      },
    };
  const params = fn.childForFieldName('parameters');
  if (!params) return { ok: false, reason: 'it has no parameter list', suggestion: 'change the return type by hand' };
  const ret = fn.childForFieldName('return_type');
  return {
    ok: true,
    what: 'the return type',
    slot: ret
      ? { replace: { start: ret.startIndex, end: ret.endIndex }, current: ret.text.replace(/^:\s*/, '') }
      : { replace: { start: params.endIndex, end: params.endIndex } },
  };
}

function locate(root: SyntaxNode, symbol: string): Target {
  const [name = '', part, ...rest] = symbol.split('.');
  if (rest.length)
    return {
      ok: false,
      reason: `"${symbol}" is not a form the op knows`,
      suggestion: 'write a variable (x), a parameter (fn.param) or a return type (fn.return)',
    };
  const declared = topLevelDeclarations(root);
  const named = declared.filter((d) => d.name === name);
  if (!named.length) {
    const near = nearestName(
      name,
      declared.filter((d) => d.kind === 'variable' || d.kind === 'function').map((d) => d.name),
    );
    return {
      ok: false,
      reason: `there is no top-level ${name}`,
      suggestion: near ? `did you mean ${near}?` : 'name a top-level variable or function',
      near: near && [near, part].filter(Boolean).join('.'),
    };
  }
  if (part === undefined) {
    const variable = named.find((d) => d.kind === 'variable');
    if (!variable)
      return {
        ok: false,
        reason: `${name} is a ${named[0]!.kind}, not a variable`,
        suggestion: `for a function, name its parameter (${name}.param) or its return type (${name}.return)`,
      };
    return { ok: true, what: `the type of ${name}`, slot: slotOf(variable.node, variable.nameNode.endIndex) };
  }
  const fns = named.map(functionNode).filter((f): f is SyntaxNode => !!f);
  if (!fns.length) return { ok: false, reason: `${name} is not a function`, suggestion: `for a variable, name it alone (${name})` };
  // Overloads: each signature has its own annotations, and which to change is a decision.
  if (fns.length > 1)
    return { ok: false, reason: `${name} has ${fns.length} signatures (overloads)`, suggestion: 'change the overloads by hand' };
  const target = part === 'return' ? returnSlot(fns[0]!) : parameterSlot(fns[0]!, part);
  return target.ok || !target.near ? target : { ...target, near: `${name}.${target.near}` };
}

/**
 * changeTypeAnnotation: sets the type of a top-level variable (`x`), of a function's parameter
 * (`fn.param`) or of its return (`fn.return`), replacing the annotation that is there or
 * adding one. Errors the new type causes in the code that uses it are the Coder's to fix.
 */
export async function changeTypeAnnotation(input: OpInput<OpOf<'changeTypeAnnotation'>>): Promise<OpResult> {
  const { op, file, text } = input;
  const type = typeText(op.type);
  const target = await input.syntax.read(file, text, (root) => locate(root, op.symbol));
  if (!target.ok) {
    return fail(
      `${op.symbol} in ${file}: ${target.reason}`,
      target.suggestion,
      target.near
        ? { proposal: { kind: 'opEdit', op: { ...op, symbol: target.near }, summary: `change ${target.near}, not ${op.symbol}` } }
        : {},
    );
  }
  const { slot } = target;
  if (slot.current !== undefined && sameTypeText(slot.current, type)) return alreadyApplied;
  const annotation = `: ${type}`;
  if (slot.wrap) {
    // `x => …` becomes `(x: T) => …` or `(x): T => …`.
    const inner = slot.wrap.as === 'return' ? `(${slot.wrap.name})${annotation}` : `(${slot.wrap.name}${annotation})`;
    const after = splice(text, slot.wrap.start, slot.wrap.end, inner);
    return finishEdit(input, after, { start: slot.wrap.start, end: slot.wrap.start + inner.length }, `${target.what} of ${op.symbol}`);
  }
  const after = splice(text, slot.replace.start, slot.replace.end, annotation);
  return finishEdit(
    input,
    after,
    { start: slot.replace.start, end: slot.replace.start + annotation.length },
    `${target.what} of ${op.symbol}`,
  );
}
