import { strict as assert } from 'node:assert';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TicketRunnerApi } from '../../../src/vscode/extension';
import type { ShownMessage } from '../../../src/vscode/messages';

/** What the in-host suites share: the workspace (a temp copy of the blog-api fixture) and the extension's API. */
export const folder = () => vscode.workspace.workspaceFolders![0]!;
export const abs = (rel: string) => path.join(folder().uri.fsPath, rel);

export async function api(): Promise<TicketRunnerApi> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name?: unknown }).name === 'ticket-runner');
  assert.ok(ext, 'the extension is loaded');
  return (await ext.activate()) as TicketRunnerApi;
}

/** The workspace's run ids, oldest first: "no run was started" compares two of these. */
export function runIds(): string[] {
  const dir = abs('.ticket-runner/runs');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Runs `body` with these ticketRunner settings in the workspace's settings, then puts the old values back. */
export async function withSettings<T>(values: Record<string, unknown>, body: () => Thenable<T> | Promise<T>): Promise<T> {
  const config = () => vscode.workspace.getConfiguration('ticketRunner', folder().uri);
  const before = Object.fromEntries(Object.keys(values).map((k) => [k, config().inspect(k)?.workspaceValue]));
  for (const [k, v] of Object.entries(values)) await config().update(k, v, vscode.ConfigurationTarget.Workspace);
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(before)) await config().update(k, v, vscode.ConfigurationTarget.Workspace);
  }
}

/** What the extension showed while `body` ran (through the seam of src/vscode/messages.ts). */
export async function messagesDuring<T>(body: () => Thenable<T> | Promise<T>): Promise<{ value: T; shown: ShownMessage[] }> {
  const shown: ShownMessage[] = [];
  const sub = (await api()).onDidShowMessage((m) => shown.push(m));
  try {
    return { value: await body(), shown };
  } finally {
    sub.dispose();
  }
}

/**
 * Waits (a minute at most) until a run's page was sent its state: on a loaded machine the page
 * can load after a short run ends, and the driver reads its sandbox line only while it shows.
 */
export async function pageShown(runId: string): Promise<boolean> {
  const shown = (await api()).panels.shownOf(runId);
  if (!shown) return false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 60_000)));
  try {
    return await Promise.race([shown.then(() => true), limit]);
  } finally {
    clearTimeout(timer);
  }
}
