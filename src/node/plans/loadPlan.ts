import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { parsePlan } from '../../core/plan/planLoader';
import { planTicketId } from '../../core/plan/planFiles';
import type { Plan } from '../../core/schema/plan';
import { normalizeRelPath } from '../../core/schema/paths';
import { parseTicket } from '../../core/ticket/ticketLoader';
import { TICKET_SUFFIXES } from '../../core/ticket/ticketFormat';
import { readTicketFile } from '../tickets/ticketFile';

/** A plan file read and checked: its workspace-relative path, the plan, and each ticket's file. */
export interface LoadedPlan {
  file: string;
  plan: Plan;
  /** Each ticket's id to its workspace-relative file and its title. */
  tickets: Map<string, { file: string; title: string }>;
}

/** The file a plan's entry names: its path, or `.tickets/<id>.ticket.*` for an id. */
function ticketFileOf(ws: string, ref: string, planFile: string): string {
  if (ref.includes('/') || TICKET_SUFFIXES.some((s) => ref.endsWith(s))) return normalizeRelPath(ref);
  const found = TICKET_SUFFIXES.map((s) => `.tickets/${ref}${s}`).find((p) => existsSync(path.join(ws, p)));
  if (!found)
    throw new UserInputError(
      `${planFile} names ${ref}, and there is no .tickets/${ref}.ticket.json or .ticket.yaml: write it, or fix the plan`,
    );
  return found;
}

/**
 * Reads a plan and every ticket it names, before anything runs: a missing or broken ticket is
 * said now, not after the tickets before it have run.
 */
export function loadPlan(ws: string, file: string): LoadedPlan {
  const { rel, text } = readTicketFile(ws, file);
  const plan = parsePlan(rel, text);
  const tickets = new Map<string, { file: string; title: string }>();
  for (const entry of plan.tickets) {
    const id = planTicketId(entry);
    const ticketFile = ticketFileOf(ws, entry.ticket, rel);
    const ticket = readTicketFile(ws, ticketFile);
    const parsed = parseTicket(ticket.rel, ticket.text);
    if (parsed.id !== id)
      throw new UserInputError(
        `${rel} names ${entry.ticket}, whose ticket's id is ${parsed.id}: a ticket's id names its file; fix one of them`,
      );
    tickets.set(id, { file: ticket.rel, title: parsed.title });
  }
  return { file: rel, plan, tickets };
}
