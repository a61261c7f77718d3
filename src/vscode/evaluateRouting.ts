import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import type { RoutingCase } from '../core/schema/routingCase';
import type { RoutingReport } from '../core/eval/report';
import { withCancelSignal } from './cancellation';
import { showMessage } from './messages';
import { Command, readSettings, SECTION } from './settings';

/** What the command may be given instead of asking (a test, another command). */
export interface EvaluateRoutingArgs {
  /** The corpus folder (cases/ and blobs/). */
  corpus?: string;
  /** Only these case ids, in the corpus's order. */
  cases?: string[];
}

/** The scheme of the read-only report documents. */
export const ROUTING_REPORT_SCHEME = 'ticket-runner-routing';

/** Where a corpus most likely is: the open folder's own `test/routing-corpus`. */
async function askCorpus(): Promise<string | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const guess = folder && vscode.Uri.joinPath(folder.uri, 'test', 'routing-corpus');
  const picked = await vscode.window.showOpenDialog({
    title: 'Evaluate Routing: the routing corpus folder (with cases/ and blobs/)',
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    defaultUri: guess,
    openLabel: 'Evaluate',
  });
  return picked?.[0]?.fsPath;
}

/**
 * Evaluate Routing: the routing benchmark (`ticket-runner eval-routing`) with the editor's own
 * language model (vscode.lm, the `ticketRunner.lmFamily` setting's family). The same core runs
 * the real Debugger stage and router over every case; the report opens as a read-only document,
 * and its JSON is what `eval-routing --compare` reads once saved.
 */
export class EvaluateRouting implements vscode.TextDocumentContentProvider {
  private readonly reports = new Map<string, string>();

  register(): vscode.Disposable {
    return vscode.Disposable.from(
      vscode.workspace.registerTextDocumentContentProvider(ROUTING_REPORT_SCHEME, this),
      vscode.commands.registerCommand(Command.evaluateRouting, async (args?: EvaluateRoutingArgs) => {
        try {
          return await this.run(args && typeof args === 'object' ? args : {});
        } catch (err) {
          void showMessage('error', `Evaluate Routing: ${errorMessage(err)}`);
          return undefined;
        }
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.toString()) ?? '';
  }

  async run(args: EvaluateRoutingArgs = {}): Promise<RoutingReport | undefined> {
    const corpus = args.corpus ?? (await askCorpus());
    if (!corpus) return undefined;
    const { loadCorpus } = await import('../node/routingCorpus/corpusFiles.js');
    let cases: RoutingCase[];
    try {
      cases = loadCorpus(corpus);
    } catch (err) {
      return void showMessage('error', `Evaluate Routing: ${errorMessage(err)}`);
    }
    if (args.cases) {
      const unknown = args.cases.filter((id) => !cases.some((c) => c.id === id));
      if (unknown.length) return void showMessage('error', `Evaluate Routing: the corpus has no case ${unknown.join(', ')}.`);
      cases = cases.filter((c) => args.cases!.includes(c.id));
    }
    const folder = vscode.workspace.workspaceFolders?.[0];
    const settings = readSettings(vscode.workspace.getConfiguration(SECTION, folder?.uri));
    const { selectLmModel } = await import('./lmModel.js');
    let model: Awaited<ReturnType<typeof selectLmModel>>;
    try {
      model = await selectLmModel(settings.lmFamily);
    } catch (err) {
      return void showMessage('error', `Evaluate Routing: ${errorMessage(err)}`);
    }
    const { evalCases } = await import('../core/eval/runEval.js');
    const { summarize } = await import('../core/eval/report.js');
    const { formatReport } = await import('../core/eval/format.js');
    const total = cases.length;
    const results = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Ticket Runner: evaluating routing with ${model.info.model}`,
        cancellable: true,
      },
      (progress, token) =>
        withCancelSignal(token, async (signal) => {
          try {
            return await evalCases(cases, {
              modelFor: () => model,
              signal,
              onCase: (r, i) => progress.report({ message: `case ${i + 1} of ${total}: ${r.id}`, increment: 100 / total }),
            });
          } catch (err) {
            if (signal.aborted) return undefined;
            throw err;
          }
        }),
    );
    if (!results) return void showMessage('info', 'Evaluate Routing was cancelled: no report.');
    const report = summarize(`${model.info.provider} ${model.info.model}`, results);
    const uri = vscode.Uri.from({ scheme: ROUTING_REPORT_SCHEME, path: `/routing-${path.basename(corpus)}-${Date.now()}.txt` });
    this.reports.set(
      uri.toString(),
      `${formatReport(report)}\n\nThe report as JSON (save it to compare two with ticket-runner eval-routing --compare A.json B.json):\n${JSON.stringify(report, null, 2)}\n`,
    );
    // Opened because the user asked for it, in a tab of its own, without taking focus from where they type.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true, preserveFocus: true });
    return report;
  }
}
