import * as vscode from 'vscode';
import type { RunState } from '../core/run/runState';
import { runName } from '../core/run/views/runName';
import { whatIsWrong } from '../core/run/views/words';
import type { ProposalDocuments } from './proposalDocuments';
import { capitalized } from './runNotices';

export const OPEN_DIFF = 'Open in Diff Editor';
export const ACCEPT = 'Accept';

/** The longest diff the modal shows; the diff editor has the whole change. */
const MAX_DIFF_LINES = 30;

type Correction = RunState['corrections'][number];

/**
 * The proposal in words for the modal: what is wrong, the fact, which file Accept changes, and the
 * change; last, the run by name, with its id for a bug report. `now`: the host's clock.
 */
export function acceptDetail(state: RunState, c: Correction, now = new Date()): string {
  const r = c.request;
  const lines = [`The run says ${whatIsWrong(r.target)} is wrong.`, `Machine fact: ${r.fact.detail}`];
  if (r.claim) lines.push(`Debugger: ${r.claim.text}`);
  const v = c.preview;
  if (v?.problem !== undefined) lines.push('', `Accepting cannot apply: ${v.problem}`);
  else if (v?.diff) {
    const diff = v.diff.split('\n').filter((l) => !l.startsWith('--- ') && !l.startsWith('+++ '));
    lines.push(
      '',
      `Accept rewrites ${v.path}${r.proposal.kind === 'testPlan' ? ' (its test plan; the tests are rendered again)' : r.proposal.kind === 'scopeAddition' ? ' (its scope)' : ''}:`,
      ...diff.slice(0, MAX_DIFF_LINES),
    );
    if (diff.length > MAX_DIFF_LINES) lines.push(`… ${diff.length - MAX_DIFF_LINES} more line(s): ${OPEN_DIFF} shows them all.`);
  }
  lines.push('', `${capitalized(runName(state, now))} (id ${state.runId}).`);
  return lines.join('\n');
}

/**
 * Accept from the tree or the palette asks first, in a modal that shows the same proposal as the
 * run view, with the diff editor's button first. Opening the diff asks again; only Accept
 * accepts. The id of the request the operator accepted, so that only that one is decided.
 */
export async function confirmAccept(state: RunState, proposals: ProposalDocuments): Promise<string | undefined> {
  const c = state.corrections.find((x) => x.status === 'pending');
  if (!c) return undefined;
  for (;;) {
    const canDiff = c.preview?.diff !== undefined;
    const buttons = canDiff ? [OPEN_DIFF, ACCEPT] : [ACCEPT];
    const answer = await vscode.window.showWarningMessage(
      `Accept the correction of ${state.ticketId}?`,
      { modal: true, detail: acceptDetail(state, c) },
      ...buttons,
    );
    if (answer !== OPEN_DIFF) return answer === ACCEPT ? c.request.id : undefined;
    await proposals.show(state.runId, c.request.id);
  }
}
