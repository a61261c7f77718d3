import * as vscode from 'vscode';
import { UserInputError } from '../core/errors';
import { reduceRun } from '../core/run/reducer';
import { formatModelCall } from '../core/run/views/prompts';
import { runName } from '../core/run/views/runName';
import { Disposable } from './dispose';
import { capitalized } from './runNotices';
import type { RunService } from './runService';

/** The scheme of a model call's record: a read-only document the editor asks this provider for. */
export const MODEL_CALL_SCHEME = 'ticket-runner-call';

/**
 * A model call's whole prompt and raw answer, from the run's blobs, as a read-only virtual
 * document (the same words as `show --prompts`). Its address names the run and the call, so a
 * document restored after a reload is read again from the log.
 */
export class ModelCallDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  constructor(private readonly runs: RunService) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(MODEL_CALL_SCHEME, this));
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const m = /^\/([^/]+)\/call-(\d+)-/.exec(uri.path);
    if (!m) return `Not a model call of a run: ${uri.path}`;
    try {
      const { state, blob } = await this.load(m[1]!);
      return await formatModelCall(state, Number(m[2]) - 1, blob);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  /** Opens call `index` (0-based) of the run beside the active editor, as a preview that takes no focus. */
  async show(runId: string, index: number): Promise<void> {
    const { state } = await this.load(runId);
    const call = state.modelCalls[index];
    const name = runName(state, new Date());
    if (!call) throw new UserInputError(`${capitalized(name)} has no model call #${index + 1} (it has ${state.modelCalls.length}).`);
    if (!call.prompt)
      throw new UserInputError(
        `The log of ${name} did not record the prompt of model call #${index + 1}: it was written before prompts were kept.`,
      );
    const uri = vscode.Uri.from({
      scheme: MODEL_CALL_SCHEME,
      path: `/${runId}/call-${index + 1}-${call.role}-attempt-${call.attempt}.txt`,
    });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  }

  private async load(runId: string) {
    const known = this.runs.get(runId);
    if (!known) throw new UserInputError('That run is not in this workspace any more (deleted?).');
    const store = this.runs.store(known.folder);
    const { events } = await store.load(runId);
    return { state: reduceRun(runId, events), blob: (hash: string) => store.getBlob(runId, hash) };
  }
}
