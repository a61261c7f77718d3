import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { startCodeServer, workbenchUrl } from '../test/vscode/codeServer';
import { buildSuite, launchChromium, openWorkbench, ROOT, tempWorkspace } from '../test/vscode/workbench';
import type { SettleSample } from './editorHost/settle';
import { median } from './measure';

export interface EditorSettle {
  /** The first check, while the server loads the project: not in the ratio. */
  warmupMs: number;
  samples: SettleSample[];
  settleMedianMs: number;
  answerMedianMs: number;
  /** settled ÷ the server's own answer, medians of the same edits. */
  ratio: number;
}

/**
 * The editor diagnostics adapter in a real VS Code: code-server runs bench/editorHost/settle.ts in
 * its extension host (the harness of test/vscode), which edits a file of the blog-api fixture,
 * alternately breaking and fixing it, and times both the adapter and the server.
 */
export async function measureEditorSettle(repoRoot: string, edits: number): Promise<EditorSettle> {
  const entry = await buildSuite(
    path.join(repoRoot, 'bench', 'editorHost', 'settle.ts'),
    path.join(ROOT, 'out', 'bench-settle', 'index.js'),
  );
  const ws = tempWorkspace();
  // The extension host inherits the server's environment.
  process.env.TR_BENCH_EDITS = String(edits);
  const server = await startCodeServer({ folder: ws.folder });
  const browser = await launchChromium();
  try {
    const results = path.join(ws.base, 'bench-settle.json');
    const page = await openWorkbench(
      browser,
      workbenchUrl({ origin: server.origin, port: server.port, folder: ws.folder, extensionPath: repoRoot, testsPath: entry }),
    );
    for (const until = Date.now() + 150_000; !existsSync(results); await page.waitForTimeout(250)) {
      if (Date.now() > until) throw new Error('the extension host wrote no settle figures within 150 s');
    }
    const r = JSON.parse(readFileSync(results, 'utf8')) as
      { ok: true; warmupMs: number; samples: SettleSample[] } | { ok: false; error: string };
    if (!r.ok) throw new Error(r.error);
    const settleMedianMs = median(r.samples.map((s) => s.settleMs));
    const answerMedianMs = median(r.samples.map((s) => s.answerMs));
    return { warmupMs: r.warmupMs, samples: r.samples, settleMedianMs, answerMedianMs, ratio: settleMedianMs / answerMedianMs };
  } finally {
    await browser.close();
    await server.stop();
    ws.dispose();
  }
}
