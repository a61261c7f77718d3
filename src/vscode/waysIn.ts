/**
 * The ways to a model, for a window whose model setting cannot run yet: an Anthropic key, a chat
 * model the editor offers, or the recorded sample (saved answers, no model called). Pure (no
 * editor API), so the wording and the choices are tested without an editor; modelSetup.ts asks
 * the editor and acts on the choice.
 */
import type { ModelProviderSetting } from './settings';

/** The buttons, as the user reads them. */
export const SET_API_KEY = 'Set Anthropic API Key';
export const USE_EDITOR_MODEL = "Use the Editor's Chat Model";
export const TRY_SAMPLE = 'Try the Recorded Sample';

export type WayIn = 'key' | 'editor' | 'sample';

const BUTTONS: Record<WayIn, string> = { key: SET_API_KEY, editor: USE_EDITOR_MODEL, sample: TRY_SAMPLE };

/** What the window knows of its model: the setting, whether a key is kept, how many chat models the editor offers. */
export interface ModelFacts {
  model: ModelProviderSetting;
  lmFamily: string;
  hasKey: boolean;
  chatModels: number;
}

/** Why the model setting cannot run (or draft) a ticket now, in words; undefined when it can. */
export function missingModel(f: ModelFacts, task: 'run' | 'draft' = 'run'): string | undefined {
  if (f.model === 'anthropic' && !f.hasKey) return `Ticket Runner needs a model to ${task} a ticket, and no Anthropic API key is set.`;
  if (f.model === 'vscode-lm' && f.chatModels === 0) {
    return f.lmFamily
      ? `Ticket Runner is set to use the editor's chat model of family "${f.lmFamily}", and the editor offers none.`
      : 'Ticket Runner is set to use a chat model of the editor, and the editor offers none.';
  }
  return undefined;
}

/**
 * The question that offers the ways in, for a modal dialog (a notification cuts three such buttons
 * short): what is missing, then each way in a few words. `sample`: whether the recorded sample is a
 * way here (it runs a ticket; it drafts nothing). `noChatModel`: the editor's model was chosen and the
 * editor offers none, so that way is left out.
 */
export function waysInQuestion(
  missing: string,
  o: { sample: boolean; noChatModel?: boolean },
): { message: string; detail: string; actions: string[]; ways: WayIn[] } {
  const ways: WayIn[] = ['key', ...(o.noChatModel ? [] : (['editor'] as const)), ...(o.sample ? (['sample'] as const) : [])];
  const words: Record<WayIn, string> = {
    key: "set an Anthropic API key (kept in the editor's secret storage)",
    editor: 'use a chat model the editor offers (GitHub Copilot, for example)',
    sample: 'try the recorded sample: a ticket replayed with its saved answers, no model called',
  };
  const list = ways.map((w) => words[w]);
  const last = list.pop()!;
  const choices = list.length ? `${list.join(', ')}, or ${last}` : last;
  const none = o.noChatModel ? 'The editor offers no chat model: sign in to a chat provider first, or choose another way. ' : '';
  return {
    message: missing,
    detail: `${none}${choices[0]!.toUpperCase()}${choices.slice(1)}.`,
    actions: ways.map((w) => BUTTONS[w]),
    ways,
  };
}

/** The way a button names. */
export function wayOf(button: string | undefined): WayIn | undefined {
  return (Object.keys(BUTTONS) as WayIn[]).find((w) => BUTTONS[w] === button);
}

/**
 * Where a changed model setting goes: the workspace's settings when the user set it there (so the
 * change takes effect), else the user's. Never a folder's: the model settings are the window's.
 */
export function settingTarget(inspected: { workspaceValue?: unknown } | undefined): 'workspace' | 'global' {
  return inspected?.workspaceValue !== undefined ? 'workspace' : 'global';
}

/** The tickets the recorded sample can replay: those with a script of recorded answers beside them. */
export function recordedTickets<T extends { path: string }>(
  tickets: readonly T[],
  scripts: ReadonlySet<string>,
  scriptOf: (ticketPath: string) => string,
): T[] {
  return tickets.filter((t) => scripts.has(scriptOf(t.path)));
}

/** What Try the Recorded Sample says in a workspace with no recorded answers. */
export const NO_RECORDED_SAMPLE =
  "None of this workspace's tickets has recorded answers (a .tickets/<ID>.script.json beside the ticket), so there is no sample to replay here. To run your own tickets, set an API key or use the editor's model.";
