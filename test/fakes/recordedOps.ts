import type { OpResult, OpScope, OpsPort } from '../../src/core/ports/ops';
import type { TicketOp } from '../../src/core/schema/ticket';
import { ask } from './questions';
import type { RecordedWorld } from './recordedWorld';

/** A fake of the typed pre-Coder ops (stands for src/node/ops/nodeOps.ts, Tree-sitter and the language service): the edits the real one computed. */
export class RecordedOps implements OpsPort {
  constructor(private readonly world: RecordedWorld) {}

  apply(op: TicketOp, scope: OpScope): Promise<OpResult> {
    return Promise.resolve(this.world.answer(ask.opsApply(op, scope)));
  }
}
