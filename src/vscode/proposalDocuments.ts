import * as vscode from 'vscode';
import { UserInputError } from '../core/errors';
import { reduceRun, type RunState } from '../core/run/reducer';
import { runName } from '../core/run/views/runName';
import { proposalTicketSides } from '../core/stages/proposals/correctionRequests';
import { proposalTestSides } from '../core/stages/router/proposalTests';
import { Disposable } from './dispose';
import { capitalized } from './runNotices';
import type { RunService } from './runService';

/** The scheme of a proposal's two sides: read-only documents the diff editor asks this provider for. */
export const PROPOSAL_SCHEME = 'ticket-runner-proposal';

type Side = 'before' | 'after';
type Kind = 'ticket' | 'test';

/**
 * A correction request's proposal as real files in VS Code's diff editor: the ticket before and
 * after Accept rewrites it, and each rendered test before and after the tests are rendered again
 * from the new plan. Each side's address names the run, the request, the side and the file, so
 * its text is computed again from the log and the workspace when the editor asks (after a
 * reload too); nothing is written anywhere.
 */
export class ProposalDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  constructor(private readonly runs: RunService) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this));
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const m = /^\/([^/]+)\/([^/]+)\/(before|after)\/(ticket|test)\/(.+)$/.exec(uri.path);
    if (!m) return `Not a side of a proposal: ${uri.path}`;
    const [, runId, requestId, side, kind, file] = m as unknown as [string, string, string, Side, Kind, string];
    try {
      const sides = await this.sides(runId, requestId, kind, file);
      return sides[side];
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  /** Opens the diff editor on one file of the proposal (the ticket, or a rendered test by its path). Returns the two sides' addresses. */
  async show(runId: string, requestId: string, test?: string): Promise<{ before: vscode.Uri; after: vscode.Uri }> {
    const kind: Kind = test === undefined ? 'ticket' : 'test';
    const { path } = await this.sides(runId, requestId, kind, test);
    const uri = (side: Side) => vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${runId}/${requestId}/${side}/${kind}/${path}` });
    const before = uri('before');
    const after = uri('after');
    const title = kind === 'ticket' ? `${path}: before ↔ after Accept` : `${path}: rendered now ↔ after Accept`;
    await vscode.commands.executeCommand('vscode.diff', before, after, title, {
      preview: true,
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: false,
    });
    return { before, after };
  }

  private async sides(
    runId: string,
    requestId: string,
    kind: Kind,
    test: string | undefined,
  ): Promise<{ path: string; before: string; after: string }> {
    const { state, readTicket } = await this.load(runId);
    const correction = state.corrections.find((c) => c.request.id === requestId);
    if (!correction) throw new UserInputError(`${capitalized(runName(state, new Date()))} has no such correction request.`);
    const proposal = correction.request.proposal;
    if (kind === 'ticket') {
      const sides = proposalTicketSides(await readTicket(), state.ticketPath, proposal);
      if ('problem' in sides) throw new UserInputError(`Accepting cannot apply: ${sides.problem}`);
      return sides;
    }
    if (!state.manifest) throw new UserInputError(`${capitalized(runName(state, new Date()))} has no manifest: no tests were rendered.`);
    const file = proposalTestSides(state.manifest, proposal).find((f) => f.path === test);
    if (!file) throw new UserInputError(`The proposal of ${requestId} does not change the rendered ${test}.`);
    return file;
  }

  private async load(runId: string): Promise<{ state: RunState; readTicket: () => Promise<string | null> }> {
    const known = this.runs.get(runId);
    if (!known) throw new UserInputError('That run is not in this workspace any more (deleted?).');
    const { events } = await this.runs.store(known.folder).load(runId);
    const state = reduceRun(runId, events);
    const readTicket = async () => {
      try {
        return Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(known.folder.uri, state.ticketPath))).toString('utf8');
      } catch {
        return null;
      }
    };
    return { state, readTicket };
  }
}
