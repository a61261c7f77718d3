import * as vscode from 'vscode';
import type { RunState } from '../../core/run/runState';
import { runNode, runOutcome } from '../../core/run/views/runTree';
import { showMessage } from '../messages';
import type { RunService } from '../runService';

/** Where a command's run argument comes from: a tree node, a run id, or a quick pick. */
export type RunArg = { runId: string } | string | undefined;

/** The run a command acts on: the one it was given, else the user's pick among those `filter` keeps (`none` said when there is none). */
export async function pickRun(
  runs: RunService,
  arg: RunArg,
  placeHolder: string,
  filter: (s: RunState) => boolean = () => true,
  none = 'No runs to pick from.',
): Promise<string | undefined> {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'runId' in arg) return arg.runId;
  const items = runs
    .list()
    .filter((r) => filter(r.state))
    .map((r) => {
      const status = runs.statusOf(r.state.runId) ?? r.state.status;
      const node = runNode(r.state, new Date(), status);
      // The ticket and when, as in the tree; what it is about and how it stands below, never its id.
      const detail = [r.state.manifest?.title, runOutcome(r.state, status)].filter(Boolean).join(' · ');
      return { label: node.label, description: node.description, detail, runId: r.state.runId };
    });
  if (!items.length) {
    void showMessage('info', none);
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder }))?.runId;
}
