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

/**
 * How a workspace runs tickets, once the user chose: with the model setting (a key, the editor's
 * chat model), or by replaying the recorded sample. Kept per workspace, so Run Ticket asks once.
 */
export type RunWay = 'setting' | 'sample';

/** What the editor's chat model as a way to run says when the editor offers none. */
export const NO_CHAT_MODEL =
  'The editor offers no chat model: install or sign in to a chat provider (GitHub Copilot, for example), then choose it again.';

export const PICK_RECORDED = 'Pick a Recorded Ticket';

/**
 * What Run Ticket asks when the workspace replays the recorded sample and the ticket in the editor
 * has no recording: it never runs another ticket in its place. The ways to run it come first; the
 * sample's list only when asked for.
 */
export function noRecordingQuestion(ticketId: string): { message: string; detail: string; actions: string[] } {
  return {
    message: `${ticketId} has no recorded answers, so the recorded sample cannot run it.`,
    detail:
      "To run your own tickets, set an Anthropic API key or use the editor's chat model. Or pick one of the sample's tickets to replay.",
    actions: [SET_API_KEY, USE_EDITOR_MODEL, PICK_RECORDED],
  };
}

/** The way a workspace runs tickets now: the recorded sample when chosen (or the scripted setting), else the model setting's. */
export function currentWay(f: ModelFacts, way: RunWay | undefined): WayIn {
  if (way === 'sample' || f.model === 'scripted') return 'sample';
  return f.model === 'vscode-lm' ? 'editor' : 'key';
}

/** The status bar's words for the way tickets run: short in the bar, the rest in the tooltip. */
export function wayStatus(f: ModelFacts, way: RunWay | undefined): { text: string; tooltip: string; ready: boolean } {
  const change = 'Click to choose another way.';
  if (currentWay(f, way) === 'sample')
    return {
      text: '$(play-circle) Recorded Sample',
      tooltip: `Ticket Runner replays tickets with their recorded answers: no model is called. ${change}`,
      ready: true,
    };
  const missing = missingModel(f);
  if (missing) return { text: '$(circle-slash) No Model', tooltip: `${missing} Click to choose one.`, ready: false };
  return f.model === 'vscode-lm'
    ? {
        text: "$(hubot) Editor's Chat Model",
        tooltip: `Ticket Runner runs tickets with the editor's chat model${f.lmFamily ? ` (family "${f.lmFamily}")` : ''}. ${change}`,
        ready: true,
      }
    : {
        text: '$(hubot) Anthropic',
        tooltip: `Ticket Runner runs tickets with Anthropic's API, with the key you set. ${change}`,
        ready: true,
      };
}

/** The choices of "Choose How Tickets Run", the current one said as such. */
export function wayChoices(current: WayIn): { label: string; description?: string; way: WayIn }[] {
  return (['key', 'editor', 'sample'] as const).map((way) => ({
    label: BUTTONS[way],
    ...(way === current ? { description: 'current' } : {}),
    way,
  }));
}
