import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { PLAN_SUFFIXES } from '../../core/plan/planFiles';
import type { PlanDraft } from '../../core/stages/authoring/draftPlan';
import { isTicketFileName, ticketBaseName } from '../../core/ticket/ticketFormat';

/** The ids of the tickets in the workspace's `.tickets/`: a plan's drafts take the next free ones. */
export function workspaceTicketIds(root: string): string[] {
  const dir = path.join(root, '.tickets');
  return existsSync(dir) ? readdirSync(dir).filter(isTicketFileName).map(ticketBaseName) : [];
}

/** Refuses a plan id whose file exists in any of its formats, before any model call: a draft never writes over a plan. */
export function checkPlanIsNew(root: string, planId: string): void {
  const existing = PLAN_SUFFIXES.map((s) => `.tickets/${planId}${s}`).find((p) => existsSync(path.join(root, p)));
  if (existing) throw new UserInputError(`${existing} already exists: a plan is never drafted over another; pick another --id`);
}

/**
 * Writes a plan draft into the workspace: every drafted ticket (one with errors too, for the user
 * to fix) and the plan file, each only where no file is. Returns the paths written.
 */
export function writePlanDraft(root: string, draft: PlanDraft): string[] {
  const files = [...draft.tickets.map((t) => ({ rel: t.path, text: t.text }))];
  if (draft.plan.tickets.length) files.push({ rel: draft.planPath, text: draft.planText });
  mkdirSync(path.join(root, '.tickets'), { recursive: true });
  for (const f of files) writeFileSync(path.join(root, f.rel), f.text, { flag: 'wx' });
  return files.map((f) => f.rel);
}
