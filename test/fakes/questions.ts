import type { TestRunRequest } from '../../src/core/ports/checks';
import type { OpScope } from '../../src/core/ports/ops';
import type { TicketOp } from '../../src/core/schema/ticket';
import type { RecordedOp } from './recording';

/**
 * Each port call as a recorded question: its operation, the arguments its answer depends on,
 * and a line for a reader. The recorder's wrappers and the fakes both ask through these, so a
 * key written by one is the key the other looks up. `pure`: the answer depends on the
 * arguments alone (a parse of given text), not on the workspace.
 */
export interface Question<Op extends RecordedOp = RecordedOp> {
  op: Op;
  args: unknown;
  asked: string;
  pure?: boolean;
}

const question = <Op extends RecordedOp>(op: Op, args: unknown, asked: string, pure?: boolean): Question<Op> => ({
  op,
  args,
  asked,
  ...(pure ? { pure } : {}),
});

export const ask = {
  testsRun: (r: TestRunRequest) => question('tests.run', { framework: r.framework, files: r.files }, `${r.framework} ${r.files.join(' ')}`),
  check: (changed: string[]) => question('diagnostics.check', { changed }, changed.join(' ')),
  autofix: (files: string[]) => question('diagnostics.autofix', { files }, files.join(' ')),
  probe: (path: string, content: string, overlays: readonly { path: string; content: string }[] = []) =>
    question(
      'diagnostics.probe',
      { path, content, overlays: overlays.map((o) => [o.path, o.content]) },
      `a probe of ${path} over ${overlays.length} overlaid files`,
    ),
  resolveSymbol: (file: string, symbol: string) => question('diagnostics.resolveSymbol', { file, symbol }, `${symbol} in ${file}`),
  lint: (files: string[]) => question('lint.lint', { files }, files.join(' ')),
  parse: (path: string, content: string) => question('parser.parse', { path, content }, path, true),
  shape: (path: string, content: string) => question('parser.shape', { path, content }, path, true),
  opsApply: (op: TicketOp, scope: OpScope) => question('ops.apply', { op, scope }, `${op.op} in ${op.file}`),
  // The end-of-ticket gates' own ports (the lint, test and model ports are the pipeline's).
  typecheck: (scope: readonly string[] | undefined) =>
    question('gates.typecheck', { scope: scope ?? null }, `the project-wide type-check of ${scope?.join(' ') ?? 'the workspace'}`),
  coverage: (r: TestRunRequest & { measure: string[] }) =>
    question(
      'gates.coverage',
      { framework: r.framework, files: r.files, measure: r.measure },
      `${r.framework} ${r.files.join(' ')}, measuring ${r.measure.join(' ')}`,
    ),
  measuresAsItRuns: (framework: TestRunRequest['framework']) =>
    question('gates.measuresAsItRuns', { framework }, `whether ${framework} measures coverage as it runs`, true),
  build: (command: string) => question('gates.build', { command }, `the build: ${command}`),
};
