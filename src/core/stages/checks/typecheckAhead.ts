import type { RunContext } from '../common/context';
import { typecheckScope } from './findingsBaseline';

/**
 * Starts the type-check gate's check as an attempt's tests start, when the attempt can still
 * pass: the gate asks for it moments after a passing attempt, and the two overlap instead of
 * following one another. The port takes the result only if the workspace did not change in
 * between (see TypeCheckPort.prefetch); the caller drops it when the attempt fails.
 */
export async function typecheckAhead(ctx: RunContext): Promise<{ drop(): void } | undefined> {
  const gates = ctx.deps.gates;
  if (!gates?.enabled.includes('typecheck') || !gates.typecheck?.prefetch) return undefined;
  return gates.typecheck.prefetch(ctx.signal, typecheckScope(ctx));
}
