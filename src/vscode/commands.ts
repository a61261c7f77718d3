import * as path from 'node:path';
import * as vscode from 'vscode';
import { editorErrorMessage, errorMessage, UserInputError } from '../core/errors';
import type { PipelineDeps, RunResult } from '../core';
import { describeUncommitted } from '../core/run/views/report';
import { readTicketData, ticketBaseName, ticketFormatOf } from '../core/ticket/ticketFormat';
import { parseTicket } from '../core/ticket/ticketLoader';
import { announcement, OPEN_RUN, ROLL_BACK } from './announcement';
import { sha256 } from '../node/store/fileRunStore';
import { FsWorkspace } from '../node/workspace/fsWorkspace';
import type { RunPanels } from './runPanel';
import type { KnownRun, RunService } from './runService';
import { showMessage, showNoticeUntil } from './messages';
import { runNode } from '../core/run/views/runTree';
import { runStage, withinAStep } from '../core/run/views/stage';
import type { RunEvent } from '../core/schema/events';
import type { RunState } from '../core/run/runState';
import { leftoverDecision, leftoverQuestion, rollbackQuestion } from './rollbackQuestion';
import { runSettingsOf } from './runSettings';
import { defaultScriptPath, unsavable } from './runScript';
import { recordScriptText } from '../node/models/scripted/recordScript';
import { confirmAccept } from './acceptQuestion';
import { Command, readSettings, SECTION } from './settings';
import type { ModelSetup } from './modelSetup';
import { NO_RECORDED_SAMPLE, recordedTickets } from './waysIn';
import { scriptPathFor } from '../node/models/scripted/loadScript';
import { openFirst, ticketChoice } from './ticketChoice';
import { saveUnsavedScope } from './unsavedScope';

export const UNTRUSTED_MESSAGE =
  'Ticket Runner starts no run in an untrusted workspace: a run executes the workspace\'s tests and writes code. Past runs stay viewable. Trust the workspace (Workspaces: Manage Workspace Trust) to run tickets.';

/** Where a command's run argument comes from: a tree node, a run id, or a quick pick. */
type RunArg = { runId: string } | string | undefined;

export interface CommandContext {
  runs: RunService;
  panels: RunPanels;
  models: ModelSetup;
  log: vscode.LogOutputChannel;
}

const core = () => import('../core/index.js');
/** The modules a run's dependencies come from (see depsForFolder); loaded once per window. */
const warmRunModules = () => Promise.all([core(), import('../node/wire.js')]).catch(() => undefined);
/**
 * How long a new run waits, once started, for its view to show its first event before its
 * heavy work begins (see RunOptions.shown): a page loads in under a second when the run does
 * not compete with it for the CPU.
 */
const FIRST_EVENT_WAIT_MS = 3000;

/**
 * Run Ticket stays visible in an untrusted workspace (not disabled), so a user who looks for it
 * learns why nothing starts, and can go straight to the trust editor.
 */
function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void showMessage('warning', UNTRUSTED_MESSAGE, 'Manage Workspace Trust').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}

/** The file of the active editor, and those of the other open editors (the visible ones first). */
function editorFiles(): { active?: vscode.Uri; open: vscode.Uri[] } {
  const active = vscode.window.activeTextEditor?.document.uri;
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input instanceof vscode.TabInputText ? t.input.uri : undefined));
  const open = [...vscode.window.visibleTextEditors.map((e) => e.document.uri), ...tabs].filter((u): u is vscode.Uri => u?.scheme === 'file' && u.toString() !== active?.toString());
  return { active: active?.scheme === 'file' ? active : undefined, open };
}

/** The paths of the workspace's scripts of recorded answers (`.tickets/<ID>.script.json`). */
async function scriptPaths(): Promise<Set<string>> {
  return new Set((await vscode.workspace.findFiles('.tickets/*.script.json', '**/node_modules/**', 500)).map((u) => u.path));
}

/** `recorded`: only the tickets the recorded sample can replay. */
async function pickTicket(first?: string, recorded = false): Promise<{ folder: vscode.WorkspaceFolder; rel: string } | undefined> {
  const all = await vscode.workspace.findFiles('.tickets/*.ticket.{json,yaml,yml}', '**/node_modules/**', 500);
  const found = recorded ? recordedTickets(all, await scriptPaths(), scriptPathFor) : all;
  const items = await Promise.all(
    found.map(async (uri) => {
      const folder = vscode.workspace.getWorkspaceFolder(uri)!;
      let title = '';
      try {
        const t = (readTicketData(uri.path, Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8')) as { title?: unknown } | null)?.title;
        title = typeof t === 'string' ? t : t === undefined || t === null ? '' : JSON.stringify(t);
      } catch {
        title = `(not valid ${ticketFormatOf(uri.path) === 'yaml' ? 'YAML' : 'JSON'})`;
      }
      const isOpen = uri.path === first;
      return { label: ticketBaseName(uri.path), description: isOpen ? `${title} · open in the editor` : title, detail: vscode.workspace.workspaceFolders!.length > 1 ? folder.name : undefined, uri, folder, path: uri.path };
    }),
  );
  if (!items.length) {
    void showMessage('info', recorded && all.length ? NO_RECORDED_SAMPLE : 'No tickets in this workspace: add one with Ticket Runner: New Ticket, as .tickets/<ID>.ticket.json or .ticket.yaml.');
    return undefined;
  }
  items.sort((a, b) => a.label.localeCompare(b.label, undefined, { numeric: true }));
  // An open ticket comes first, so Enter takes it.
  const ordered = openFirst(items, first);
  // The run's modules load while the user reads the list: on a window's first run they take
  // most of a second, which would otherwise come between the choice and the first event.
  const warm = setTimeout(() => void warmRunModules(), 300);
  const picked = await vscode.window.showQuickPick(ordered, {
    title: recorded ? 'Ticket Runner: Try the Recorded Sample' : 'Ticket Runner: Run Ticket',
    placeHolder: recorded ? 'Pick a ticket to replay with its recorded answers (no model is called)' : 'Pick a ticket to run',
    matchOnDescription: true,
  });
  clearTimeout(warm);
  return picked ? { folder: picked.folder, rel: relTo(picked.folder, picked.uri) } : undefined;
}

const relTo = (folder: vscode.WorkspaceFolder, uri: vscode.Uri) => path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');

async function pickRun(ctx: CommandContext, arg: RunArg, placeHolder: string, filter: (s: RunState) => boolean = () => true, none = 'No runs to pick from.'): Promise<string | undefined> {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'runId' in arg) return arg.runId;
  const items = ctx.runs
    .list()
    .filter((r) => filter(r.state))
    .map((r) => {
      const node = runNode(r.state, new Date(), ctx.runs.statusOf(r.state.runId));
      return { label: node.label, description: node.description, detail: `run ${r.state.runId}`, runId: r.state.runId };
    });
  if (!items.length) {
    void showMessage('info', none);
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder }))?.runId;
}

/**
 * Runs a ticket with a cancellable progress notification; resolves with the run's result.
 * `recorded`: the recorded sample, a ticket replayed with the scripted model from its saved answers.
 */
async function runTicket(ctx: CommandContext, target?: vscode.Uri, o: { recorded?: boolean } = {}): Promise<RunResult | undefined> {
  if (!requireTrust()) return undefined;
  // The model first: without one the run would stop before its first step, after the ticket was picked.
  let recorded = o.recorded === true;
  if (!recorded) {
    const editorUri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    const way = await ctx.models.ensure((editorUri && vscode.workspace.getWorkspaceFolder(editorUri)) ?? vscode.workspace.workspaceFolders?.[0], 'run');
    if (!way) return undefined;
    recorded = way === 'sample';
  }
  let picked: { folder: vscode.WorkspaceFolder; rel: string } | undefined;
  // With no ticket given (the palette, a key), the ticket in the active editor runs, saved first:
  // the run reads the file. Else the list comes, with an open ticket first.
  let first: string | undefined;
  if (!(target instanceof vscode.Uri)) {
    const files = editorFiles();
    const choice = ticketChoice(files.active?.path, files.open.map((u) => u.path));
    // A ticket deleted under its editor is not one to run: the list comes instead.
    const onDisk = async (uri: vscode.Uri) => Promise.resolve(vscode.workspace.fs.stat(uri)).then(() => true, () => false);
    if ('run' in choice && files.active && (await onDisk(files.active))) {
      target = files.active;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target!.toString());
      if (doc?.isDirty) await doc.save();
    } else if ('first' in choice) first = choice.first;
  }
  // The sample replays only a ticket with recorded answers: another one given is offered among them instead.
  if (recorded && target instanceof vscode.Uri && !(await scriptPaths()).has(scriptPathFor(target.path))) target = undefined;
  if (target instanceof vscode.Uri) {
    const folder = vscode.workspace.getWorkspaceFolder(target);
    if (!folder) return void showMessage('error', `${target.fsPath} is not in a workspace folder.`);
    picked = { folder, rel: relTo(folder, target) };
  }
  // The run's view opens as the command starts, so its page loads while the ticket is picked and
  // the run starts (a webview takes a second or more to load); the run's first event binds it.
  const view = ctx.panels.prepare(picked ? `Run: ${ticketBaseName(picked.rel)}` : 'Run Ticket');
  let goOn = false;
  try {
    picked ??= await pickTicket(first, recorded);
    goOn = !!picked && (await ticketParses(ctx, picked)) && (await scopeSaved(picked)) && (await settleLeftovers(ctx, picked.folder));
  } finally {
    if (!goOn) view.release();
  }
  if (!goOn || !picked) return undefined;
  const { folder, rel } = picked;
  view.retitle(`Run: ${ticketBaseName(rel)}`);
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION, folder.uri));
  ctx.log.info(`run ticket ${rel} in ${folder.name} (model ${recorded ? 'scripted: the recorded sample' : settings.model})`);
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Ticket Runner: ${ticketBaseName(rel)}${recorded ? ' (recorded answers)' : ''}`, cancellable: true },
      async (progress, token) => {
        const { startRun } = await core();
        const report = stageReporter(ctx, progress);
        return ctx.runs.drive(folder, rel, (deps, signal) => startRun(deps, { ticketPath: rel, budget: runSettingsOf(settings).budget, recovery: runSettingsOf(settings).recovery, signal, shown: () => view.shown(FIRST_EVENT_WAIT_MS) }), {
          cancel: token,
          ...(recorded ? { model: 'scripted' as const } : {}),
          onEvent: (e) => {
            report(e);
            if (e.type === 'run.started') view.bind(e.runId);
            if (e.type === 'uncommitted.detected') {
              void showMessage('warning', `Ticket Runner: ${describeUncommitted(e.files)}.`);
            }
          },
        });
      },
    );
    void announce(ctx, result);
    return result;
  } catch (err) {
    showError(ctx, `Run of ${rel} did not start`, err);
    return undefined;
  } finally {
    view.release();
  }
}

/**
 * Whether the picked ticket reads as one: a broken ticket is said now, in the words the run would
 * use, before any question about earlier runs, since there is no run to prepare for. A ticket
 * that cannot be read is left to the run, which says where it looked.
 */
async function ticketParses(ctx: CommandContext, picked: { folder: vscode.WorkspaceFolder; rel: string }): Promise<boolean> {
  const text = await ticketText(picked);
  if (text === undefined) return true;
  try {
    parseTicket(picked.rel, text);
    return true;
  } catch (err) {
    showError(ctx, `Run of ${picked.rel} did not start`, err);
    return false;
  }
}

const ticketText = (picked: { folder: vscode.WorkspaceFolder; rel: string }): Promise<string | undefined> =>
  Promise.resolve(vscode.workspace.fs.readFile(vscode.Uri.joinPath(picked.folder.uri, picked.rel))).then(
    (bytes) => Buffer.from(bytes).toString('utf8'),
    () => undefined,
  );

/** The scope's unsaved files are saved with the user's consent before the run reads them (`saveUnsavedScope`). */
async function scopeSaved(picked: { folder: vscode.WorkspaceFolder; rel: string }): Promise<boolean> {
  const text = await ticketText(picked);
  return text === undefined || saveUnsavedScope(picked.folder, picked.rel, text);
}

/**
 * Before a new run: earlier runs that left files as they wrote them are named, with the choice
 * to roll them back first or build on them. Runs that did not pass, always; passed ones too when
 * the run replays recorded answers (see LeftoverOptions). False when the user backed out.
 */
async function settleLeftovers(ctx: CommandContext, folder: vscode.WorkspaceFolder): Promise<boolean> {
  const { leftoverRuns, rollbackRun } = await core();
  const io = { store: ctx.runs.store(folder), workspace: new FsWorkspace(folder.uri.fsPath), hash: sha256 };
  const states = ctx.runs
    .list()
    .filter((r) => r.folder.uri.toString() === folder.uri.toString() && !ctx.runs.isActive(r.state.runId))
    .map((r) => r.state);
  const scripted = readSettings(vscode.workspace.getConfiguration(SECTION, folder.uri)).model === 'scripted';
  const leftovers = await leftoverRuns(io, states, { passed: scripted });
  if (!leftovers.length) return true;
  const question = leftoverQuestion(leftovers, scripted);
  const choice = await vscode.window.showWarningMessage(question.message, { modal: true, detail: question.detail }, ...question.actions);
  const decision = leftoverDecision(question, choice);
  if (decision !== 'rollBackFirst') return decision === 'runAnyway';
  for (const l of leftovers) {
    // Only files that still hold the run's bytes were listed: nothing of the user's is overwritten.
    await ctx.runs.drive(folder, ctx.runs.get(l.runId)!.state.ticketPath, (deps) => rollbackRun(deps, l.runId), { noModel: true });
    ctx.log.info(`run ${l.runId} rolled back before a new run`);
  }
  return true;
}

async function announce(ctx: CommandContext, result: RunResult): Promise<void> {
  const known = ctx.runs.get(result.runId);
  let written = 0;
  if (known && result.state.status !== 'passed') {
    const { planRollback } = await core();
    written = await planRollback({ store: ctx.runs.store(known.folder), workspace: new FsWorkspace(known.folder.uri.fsPath), hash: sha256 }, result.runId).then(
      (plan) => plan.steps.length,
      () => 0,
    );
  }
  const { level, text, actions, untilDecided } = announcement(result.state, written);
  if (untilDecided) return void showNoticeUntil(level, text, decided(ctx, result.runId));
  const choice = await showMessage(level, text, ...actions);
  if (choice === OPEN_RUN) ctx.panels.open(result.runId);
  if (choice === ROLL_BACK) await vscode.commands.executeCommand(Command.rollbackRun, result.runId);
}

/** Settles once the run no longer waits for a decision: decided (anywhere), rolled back, or deleted. */
function decided(ctx: CommandContext, runId: string): Promise<void> {
  const waits = () => {
    const state = ctx.runs.get(runId)?.state;
    return state?.status === 'needsOperator' && !state.rolledBack && state.corrections.some((c) => c.status === 'pending');
  };
  return new Promise((resolve) => {
    if (!waits()) return resolve();
    const sub = ctx.runs.onDidChangeRun(() => {
      if (waits()) return;
      sub.dispose();
      resolve();
    });
  });
}

function showError(ctx: CommandContext, what: string, err: unknown): void {
  ctx.log.error(`${what}: ${errorMessage(err)}`);
  void showMessage('error', err instanceof UserInputError ? editorErrorMessage(err) : `${what}: ${errorMessage(err)} (see the Ticket Runner log)`);
}

/** Continues an interrupted or cancelled run from its log, with a cancellable progress notification. */
async function resumeInWindow(ctx: CommandContext, folder: vscode.WorkspaceFolder, runId: string): Promise<RunResult> {
  const known = ctx.runs.get(runId)!;
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION, folder.uri));
  const status = ctx.runs.statusOf(runId);
  const reason = status === 'cancelled' ? 'cancelled, resumed by the operator' : `interrupted: its process${known.state.owner ? ` (pid ${known.state.owner.pid})` : ''} is gone`;
  const { resumeRun } = await core();
  return goOn(ctx, { folder, state: known.state }, `resuming ${known.state.ticketId}`, (deps, signal) => resumeRun(deps, runId, { reason, signal, recovery: runSettingsOf(settings).recovery }));
}

/**
 * The progress notification's line: the step the run is in now, in the run view's words, so the
 * two never name different steps. The run service has reduced the event before this sees it.
 */
function stageReporter(ctx: CommandContext, progress: vscode.Progress<{ message?: string }>): (e: RunEvent) => void {
  let step: RunEvent | undefined;
  let said: string | undefined;
  return (e) => {
    if (!withinAStep(e)) step = e;
    const state = ctx.runs.get(e.runId)?.state;
    const label = state && step ? runStage(state, [step])?.label : undefined;
    if (label && label !== said) progress.report({ message: (said = label) });
  };
}

/** Drives a run on from its log (resume, a decision) under a cancellable progress notification, and says how it ended. */
async function goOn(ctx: CommandContext, known: KnownRun, title: string, body: (deps: PipelineDeps, signal: AbortSignal) => Promise<RunResult>, noModel = false): Promise<RunResult> {
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Ticket Runner: ${title}`, cancellable: true }, (progress, token) =>
    ctx.runs.drive(known.folder, known.state.ticketPath, body, {
      cancel: token,
      continuesRun: known.state.runId,
      noModel,
      // A scripted run (the recorded sample) goes on with its recorded answers, whatever the setting says now.
      ...(known.state.model?.scripted ? { model: 'scripted' as const } : {}),
      onEvent: stageReporter(ctx, progress),
    }),
  );
  void announce(ctx, result);
  return result;
}

/** Accepts or rejects a run's pending correction through the core; the log records the decision. */
/** `requestId`: the request the operator was shown (see ResolveOptions). */
export async function decide(ctx: CommandContext, runId: string, decision: 'accept' | 'reject', reason: string | undefined, by = 'vscode', requestId?: string): Promise<RunResult> {
  if (!vscode.workspace.isTrusted) throw new UserInputError(UNTRUSTED_MESSAGE);
  const known = ctx.runs.get(runId) ?? (await ctx.runs.refresh(), ctx.runs.get(runId));
  if (!known) throw new UserInputError(`no run ${runId} in this workspace`);
  if (decision === 'reject' && !reason?.trim()) throw new UserInputError('A rejection needs a reason.');
  const settings = readSettings(vscode.workspace.getConfiguration(SECTION, known.folder.uri));
  const { resolveCorrection } = await core();
  return goOn(ctx, known, `${decision === 'accept' ? 'accepting' : 'rejecting'} the correction of ${known.state.ticketId}`, (deps, signal) =>
    resolveCorrection(deps, runId, { decision, reason, by, signal, budget: runSettingsOf(settings).budget, recovery: runSettingsOf(settings).recovery, requestId }),
    decision === 'reject',
  );
}

/** Save Run as Script: the run's model answers as a script the scripted model replays, where the operator says. */
async function saveRunScript(ctx: CommandContext, arg: RunArg): Promise<vscode.Uri | undefined> {
  const id = await pickRun(ctx, arg, 'Save which run as a script?', (s) => !unsavable(s, ctx.runs.isActive(s.runId)), 'No run to save: none has stopped after a model call.');
  const known = id ? ctx.runs.get(id) : undefined;
  if (!known) return undefined;
  const problem = unsavable(known.state, ctx.runs.isActive(known.state.runId));
  if (problem) return void showMessage('warning', problem);
  const target = await vscode.window.showSaveDialog({
    title: `Ticket Runner: Save run ${known.state.runId} as a script`,
    defaultUri: vscode.Uri.file(defaultScriptPath(known.folder.uri.fsPath, known.state)),
    filters: { 'Ticket Runner script': ['json'] },
    saveLabel: 'Save Script',
  });
  if (!target) return undefined;
  try {
    const store = ctx.runs.store(known.folder);
    const text = await recordScriptText(known.state, (hash) => store.getBlob(known.state.runId, hash));
    await vscode.workspace.fs.writeFile(target, Buffer.from(text, 'utf8'));
    ctx.log.info(`run ${known.state.runId} saved as a script: ${target.fsPath}`);
    void showMessage('info', `Saved ${known.state.modelCalls.length} model answer(s) of run ${known.state.runId} to ${vscode.workspace.asRelativePath(target)}. The scripted model replays it when it is the ticket's .script.json.`);
    return target;
  } catch (err) {
    showError(ctx, `Saving run ${known.state.runId} as a script failed`, err);
    return undefined;
  }
}

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  return [
    reg(Command.runTicket, (uri?: vscode.Uri) => runTicket(ctx, uri)),
    reg(Command.tryRecordedSample, (uri?: vscode.Uri) => runTicket(ctx, uri instanceof vscode.Uri ? uri : undefined, { recorded: true })),
    reg(Command.openRun, async (arg?: RunArg) => {
      const id = await pickRun(ctx, arg, 'Open which run?');
      if (id) ctx.panels.open(id, 'live');
    }),
    reg(Command.replayRun, async (arg?: RunArg) => {
      const id = await pickRun(ctx, arg, 'Replay which run?');
      if (id) ctx.panels.open(id, 'replay');
    }),
    reg(Command.revealLog, async (arg?: RunArg) => {
      const id = await pickRun(ctx, arg, 'Reveal the log of which run?');
      const known = id ? ctx.runs.get(id) : undefined;
      if (!known) return;
      const uri = vscode.Uri.file(ctx.runs.store(known.folder).logPath(known.state.runId));
      await vscode.window.showTextDocument(uri, { preview: true });
      void vscode.commands.executeCommand('revealInExplorer', uri);
    }),
    reg(Command.deleteRun, async (arg?: RunArg, confirmed?: boolean) => {
      const id = await pickRun(ctx, arg, 'Delete which run?');
      if (!id) return;
      if (ctx.runs.isActive(id)) return void showMessage('warning', 'This run is still going: cancel it first.');
      if (confirmed !== true) {
        const ok = await vscode.window.showWarningMessage(`Delete run ${id} and its log? Files it wrote stay as they are.`, { modal: true }, 'Delete');
        if (ok !== 'Delete') return;
      }
      await ctx.runs.delete(id);
      ctx.log.info(`run ${id} deleted`);
    }),
    reg(Command.rollbackRun, async (arg?: RunArg, confirmed?: boolean) => {
      if (!requireTrust()) return;
      const id = await pickRun(ctx, arg, 'Roll back which run?', (st) => !st.rolledBack && !ctx.runs.isActive(st.runId), 'No run to roll back: every run is rolled back or still going.');
      const known = id ? ctx.runs.get(id) : undefined;
      if (!known || !id) return;
      try {
        const { planRollback, rollbackRun } = await core();
        let force = false;
        if (confirmed !== true) {
          // The same check as the CLI's, asked rather than refused: the list says what would be lost.
          const plan = await planRollback({ store: ctx.runs.store(known.folder), workspace: new FsWorkspace(known.folder.uri.fsPath), hash: sha256 }, id);
          const { message, detail, action } = rollbackQuestion(plan);
          if ((await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) !== action) return;
          force = plan.conflicts.length > 0;
        }
        const result = await ctx.runs.drive(known.folder, known.state.ticketPath, (deps) => rollbackRun(deps, id, { force }), { noModel: true });
        void showMessage('info', `Run ${id} rolled back.`);
        return result;
      } catch (err) {
        showError(ctx, `Rollback of ${id} failed`, err);
      }
    }),
    reg(Command.resumeRun, async (arg?: RunArg) => {
      if (!requireTrust()) return;
      const id = await pickRun(ctx, arg, 'Resume which run?', (st) => ['interrupted', 'cancelled'].includes(ctx.runs.statusOf(st.runId) ?? ''));
      const known = id ? ctx.runs.get(id) : undefined;
      if (!known || !id) return;
      try {
        return await resumeInWindow(ctx, known.folder, id);
      } catch (err) {
        showError(ctx, `Resume of ${id} failed`, err);
      }
    }),
    reg(Command.refreshRuns, () => ctx.runs.refresh()),
    reg(Command.saveRunScript, (arg?: RunArg) => saveRunScript(ctx, arg)),
    // `confirmed`: the caller already showed the proposal (a test); the tree and the palette ask first.
    reg(Command.acceptCorrection, async (arg?: RunArg, confirmed?: boolean) => {
      const id = await pickRun(ctx, arg, 'Accept the correction request of which run?', (s) => s.status === 'needsOperator');
      if (!id) return;
      try {
        const known = ctx.runs.get(id);
        if (!known || confirmed === true) return await decide(ctx, id, 'accept', undefined);
        // The log, not the window's copy of it: the request may have come in a moment ago.
        const state = (await ctx.runs.reload(known.folder, id)) ?? known.state;
        if (!state.corrections.some((c) => c.status === 'pending')) return void showMessage('info', `Run ${id} of ${state.ticketId} waits for no decision: nothing to accept.`);
        const requestId = await confirmAccept(state, ctx.panels.proposals);
        if (!requestId) return;
        // Decided while the modal was open (the run view's Accept): say so; the core refuses it anyway.
        const now = ctx.runs.get(id)?.state.corrections.find((c) => c.request.id === requestId);
        if (now && now.status !== 'pending') return void showMessage('info', `The correction of ${known.state.ticketId} was already ${now.status}: nothing to accept.`);
        return await decide(ctx, id, 'accept', undefined, 'vscode', requestId);
      } catch (err) {
        showError(ctx, 'Accept failed', err);
      }
    }),
    reg(Command.rejectCorrection, async (arg?: RunArg, reason?: string) => {
      const id = await pickRun(ctx, arg, 'Reject the correction request of which run?', (s) => s.status === 'needsOperator');
      if (!id) return;
      const why = reason ?? (await vscode.window.showInputBox({ title: 'Why is the proposed change wrong?', prompt: 'The reason goes into the run log.', validateInput: (v) => (v.trim() ? undefined : 'A rejection needs a reason.') }));
      if (!why) return;
      try {
        return await decide(ctx, id, 'reject', why);
      } catch (err) {
        showError(ctx, 'Reject failed', err);
      }
    }),
  ];
}
