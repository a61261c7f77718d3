import * as vscode from 'vscode';
import { UserInputError } from '../../core/errors';
import type { RunResult } from '../../core';
import { folderRunSettings } from '../folderSettings';
import type { RunService } from '../runService';
import { core } from './lazyCore';
import { driveOn } from './runProgress';
import { UNTRUSTED_MESSAGE } from './workspaceTrust';

/**
 * Decides a run's pending correction, for the run view and the palette alike: built before
 * both, since the run view's Accept and Reject come here.
 */
export class CorrectionService {
  constructor(private readonly runs: RunService) {}

  /**
   * Accepts or rejects a run's pending correction through the core; the log records the decision.
   * `requestId`: the request the operator was shown (see ResolveOptions).
   */
  async decide(
    runId: string,
    decision: 'accept' | 'reject',
    reason: string | undefined,
    by = 'vscode',
    requestId?: string,
  ): Promise<RunResult> {
    if (!vscode.workspace.isTrusted) throw new UserInputError(UNTRUSTED_MESSAGE);
    const known = this.runs.get(runId) ?? (await this.runs.refresh(), this.runs.get(runId));
    if (!known) throw new UserInputError(`no run ${runId} in this workspace`);
    if (decision === 'reject' && !reason?.trim()) throw new UserInputError('A rejection needs a reason.');
    const settings = folderRunSettings(known.folder);
    const { resolveCorrection } = await core();
    return driveOn(
      this.runs,
      known,
      `${decision === 'accept' ? 'accepting' : 'rejecting'} the correction of ${known.state.ticketId}`,
      (deps, signal) =>
        resolveCorrection(deps, runId, {
          decision,
          reason,
          by,
          signal,
          budget: settings.run.budget,
          recovery: settings.run.recovery,
          requestId,
        }),
      { settings, noModel: decision === 'reject' },
    );
  }
}
