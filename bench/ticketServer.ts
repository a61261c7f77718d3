/**
 * The ticket language server's latency, driven over stdio as an editor drives it
 * (`node dist/cli.js lsp --stdio`, the real server) on a copy of blog-api: from a didChange of
 * BLOG-1 to its published diagnostics (the debounce included), and a completion in `scope`,
 * each after a warm-up. Run alone: `npx tsx bench/ticketServer.ts`.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LspSession, positionOf } from '../test/support/lspClient';
import { copyFixture } from '../test/support/tempWorkspace';
import { median } from './measure';
import { ms, type Row } from './report';

export interface TicketServerLatency {
  /** A didChange in the description to its diagnostics, per edit after the warm-up (the rendered test unchanged). */
  diagnosticsMs: number[];
  /** The same for an edit in an expectation: the rendered test changes and is type-checked again. */
  testPlanDiagnosticsMs: number[];
  /** A completion of a scope path, per request after the warm-up. */
  completionMs: number[];
  /** The first diagnostics after didOpen: the language service starting. */
  firstDiagnosticsMs: number;
}

export const DIAGNOSTICS_TARGET_MS = 300;
export const COMPLETION_TARGET_MS = 100;

export async function measureTicketServer(edits: number): Promise<TicketServerLatency> {
  const ws = copyFixture();
  const lsp = await LspSession.start(ws.root);
  try {
    const base = readFileSync(path.join(ws.root, '.tickets', 'BLOG-1.ticket.json'), 'utf8');
    let version = 1;
    let t = performance.now();
    const uri = await lsp.open('.tickets/BLOG-1.ticket.json', base, version);
    await lsp.diagnostics(uri, version);
    const firstDiagnosticsMs = performance.now() - t;

    // A keystroke: the whole ticket is checked again, types included. In the description the
    // rendered test stays the same; in an expectation it changes and is type-checked afresh.
    const keystrokes = async (edit: (i: number) => string): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < edits + 2; i++) {
        const text = edit(i);
        t = performance.now();
        await lsp.change(uri, text, ++version);
        await lsp.diagnostics(uri, version);
        if (i >= 2) times.push(performance.now() - t);
      }
      return times;
    };
    const diagnosticsMs = await keystrokes((i) =>
      base.replace('Values up to 100 keep working.', `Values up to 100 keep working.${' '.repeat(i + 1)}`),
    );
    const testPlanDiagnosticsMs = await keystrokes((i) => base.replace('"expected": "400"', `"expected": "${400 + i}"`));

    const current = base.replace('"expected": "400"', `"expected": "${400 + edits + 1}"`);
    const position = positionOf(current, '"src/handlers/posts.ts"', 5);
    const completionMs: number[] = [];
    for (let i = 0; i < edits + 2; i++) {
      t = performance.now();
      const items = await lsp.connection.sendRequest<unknown[]>('textDocument/completion', { textDocument: { uri }, position });
      if (!items.length) throw new Error('the scope completion offered nothing');
      if (i >= 2) completionMs.push(performance.now() - t);
    }
    return { diagnosticsMs, testPlanDiagnosticsMs, completionMs, firstDiagnosticsMs };
  } finally {
    await lsp.close();
    ws.dispose();
  }
}

export function ticketServerRows(o: TicketServerLatency): Row[] {
  const diagnostics = median(o.diagnosticsMs);
  const testPlan = median(o.testPlanDiagnosticsMs);
  const completion = median(o.completionMs);
  return [
    {
      figure: 'Ticket language server: a keystroke in the description (didChange) to its diagnostics, BLOG-1, warm, over stdio',
      measured: `${ms(diagnostics)} median of ${o.diagnosticsMs.length} (max ${ms(Math.max(...o.diagnosticsMs))}; debounce included; the first, cold: ${ms(o.firstDiagnosticsMs)})`,
      target: `< ${DIAGNOSTICS_TARGET_MS} ms`,
      met: diagnostics < DIAGNOSTICS_TARGET_MS,
    },
    {
      figure: 'Ticket language server: a keystroke in an expectation to its diagnostics (the rendered test type-checked again), warm',
      measured: `${ms(testPlan)} median of ${o.testPlanDiagnosticsMs.length} (max ${ms(Math.max(...o.testPlanDiagnosticsMs))}; debounce included)`,
      target: `< ${DIAGNOSTICS_TARGET_MS} ms`,
      met: testPlan < DIAGNOSTICS_TARGET_MS,
    },
    {
      figure: 'Ticket language server: a completion of a scope path, warm, over stdio',
      measured: `${ms(completion)} median of ${o.completionMs.length} (max ${ms(Math.max(...o.completionMs))})`,
      target: `< ${COMPLETION_TARGET_MS} ms`,
      met: completion < COMPLETION_TARGET_MS,
    },
  ];
}

if (require.main === module) {
  measureTicketServer(7).then(
    (o) => process.stdout.write(`${JSON.stringify(ticketServerRows(o), null, 2)}\n`),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
