import type { DiagnosticsPort } from '../../src/core/ports/checks';
import type { AppliedFix, CodeDiagnostic } from '../../src/core/schema/checks';
import { ask } from './questions';
import type { RecordedWorld } from './recordedWorld';

/**
 * A fake of the TypeScript language service (stands for src/node/diagnostics/, the headless
 * service per package): check, code fixes, probes and symbols as the real one answered them.
 * A code fix writes the files as the real fix left them, straight into the workspace, as the
 * real service writes the disk beside the run's tracked writes.
 */
export class RecordedDiagnostics implements DiagnosticsPort {
  constructor(private readonly world: RecordedWorld) {}

  check(changed: string[]): Promise<{ checkedFiles: string[]; diagnostics: CodeDiagnostic[]; checkedBy?: string }> {
    return Promise.resolve(this.world.answer(ask.check(changed)));
  }

  async autofix(files: string[]): Promise<{ applied: AppliedFix[]; refused: AppliedFix[] }> {
    const { applied, refused, writes } = this.world.answer(ask.autofix(files));
    for (const [path, content] of Object.entries(writes)) await this.world.workspace.writeFile(path, content);
    return { applied, refused };
  }

  probe(
    path: string,
    content: string,
    _signal: AbortSignal,
    overlays?: readonly { path: string; content: string }[],
  ): Promise<CodeDiagnostic[]> {
    return Promise.resolve(this.world.answer(ask.probe(path, content, overlays)));
  }

  resolveSymbol(file: string, symbol: string): Promise<string | null> {
    return Promise.resolve(this.world.answer(ask.resolveSymbol(file, symbol)));
  }
}
