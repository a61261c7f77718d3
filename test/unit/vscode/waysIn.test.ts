import { strict as assert } from 'node:assert';
import { scriptPathFor } from '../../../src/node/models/scripted/loadScript';
import {
  currentWay,
  missingModel,
  noRecordingQuestion,
  PICK_RECORDED,
  NO_RECORDED_SAMPLE,
  recordedTickets,
  SET_API_KEY,
  settingTarget,
  TRY_SAMPLE,
  USE_EDITOR_MODEL,
  wayChoices,
  wayOf,
  waysInQuestion,
  wayStatus,
  type ModelFacts,
} from '../../../src/vscode/waysIn';

const facts = (f: Partial<ModelFacts>): ModelFacts => ({ model: 'anthropic', lmFamily: '', hasKey: false, chatModels: 0, ...f });

describe('the ways to a model, for a window that has none', () => {
  it('a model setting that cannot run says why; one that can says nothing', () => {
    assert.match(missingModel(facts({}))!, /no Anthropic API key is set/);
    assert.equal(missingModel(facts({ hasKey: true })), undefined);
    assert.match(missingModel(facts({ model: 'vscode-lm' }))!, /the editor offers none/);
    assert.match(missingModel(facts({ model: 'vscode-lm', lmFamily: 'gpt-4o' }))!, /family "gpt-4o"/);
    assert.equal(missingModel(facts({ model: 'vscode-lm', chatModels: 1 })), undefined);
    // The recorded answers need neither a key nor a chat model.
    assert.equal(missingModel(facts({ model: 'scripted' })), undefined);
  });

  it('a run offers the three ways as buttons, each named in the message; a draft offers the two that can draft', () => {
    const run = waysInQuestion(missingModel(facts({}))!, { sample: true });
    assert.deepEqual(run.actions, [SET_API_KEY, USE_EDITOR_MODEL, TRY_SAMPLE]);
    assert.deepEqual(run.actions, ['Set Anthropic API Key', "Use the Editor's Chat Model", 'Try the Recorded Sample']);
    assert.equal(run.message, 'Ticket Runner needs a model to run a ticket, and no Anthropic API key is set.');
    assert.equal(
      run.detail,
      "Set an Anthropic API key (kept in the editor's secret storage), use a chat model the editor offers (GitHub Copilot, for example), or try the recorded sample: a ticket replayed with its saved answers, no model called.",
    );
    const draft = waysInQuestion(missingModel(facts({}), 'draft')!, { sample: false });
    assert.match(draft.message, /^Ticket Runner needs a model to draft a ticket/);
    assert.deepEqual(draft.actions, [SET_API_KEY, USE_EDITOR_MODEL]);
    assert.doesNotMatch(draft.detail, /recorded/);
  });

  it("after the editor's model was chosen and the editor offers none, the question says so and leaves that way out", () => {
    const q = waysInQuestion(missingModel(facts({}))!, { sample: true, noChatModel: true });
    assert.deepEqual(q.ways, ['key', 'sample']);
    assert.match(
      q.detail,
      /^The editor offers no chat model: sign in to a chat provider first, or choose another way\. Set an Anthropic API key .*, or try the recorded sample/,
    );
  });

  it('speaks of settings and commands, never of command-line flags or setting ids', () => {
    for (const q of [
      waysInQuestion(missingModel(facts({}))!, { sample: true }),
      waysInQuestion(missingModel(facts({ model: 'vscode-lm' }))!, { sample: true, noChatModel: true }),
    ]) {
      assert.doesNotMatch(`${q.message} ${q.detail}`, /--|ticketRunner\./);
    }
    assert.doesNotMatch(NO_RECORDED_SAMPLE, /--|ticketRunner\./);
  });

  it('a button names its way; a closed notification names none', () => {
    assert.equal(wayOf('Set Anthropic API Key'), 'key');
    assert.equal(wayOf("Use the Editor's Chat Model"), 'editor');
    assert.equal(wayOf('Try the Recorded Sample'), 'sample');
    assert.equal(wayOf(undefined), undefined);
  });

  it("a changed model setting goes where the user set it, so that it takes effect; else into the user settings; never a folder's", () => {
    // A single folder's settings are its workspace's too: the window setting is written there, never as the folder's.
    assert.equal(
      settingTarget({ workspaceFolderValue: 'anthropic', workspaceValue: 'anthropic' } as { workspaceValue?: unknown }),
      'workspace',
    );
    assert.equal(settingTarget({ workspaceValue: 'anthropic' }), 'workspace');
    assert.equal(settingTarget({}), 'global');
    assert.equal(settingTarget(undefined), 'global');
  });

  it('the recorded sample replays only a ticket with a script of recorded answers beside it', () => {
    const tickets = ['/w/.tickets/BLOG-1.ticket.json', '/w/.tickets/BLOG-2.ticket.yaml', '/w/.tickets/NEW-1.ticket.json'].map((p) => ({
      path: p,
    }));
    const scripts = new Set(['/w/.tickets/BLOG-1.script.json', '/w/.tickets/BLOG-2.script.json']);
    assert.deepEqual(
      recordedTickets(tickets, scripts, scriptPathFor).map((t) => t.path),
      ['/w/.tickets/BLOG-1.ticket.json', '/w/.tickets/BLOG-2.ticket.yaml'],
    );
    assert.deepEqual(recordedTickets(tickets, new Set(), scriptPathFor), []);
  });
});

describe('the way a workspace runs tickets, once chosen', () => {
  it('the recorded sample, once chosen, is the way even with a model setting that cannot run', () => {
    assert.equal(currentWay(facts({}), 'sample'), 'sample');
    assert.equal(currentWay(facts({ model: 'scripted' }), undefined), 'sample');
    assert.equal(currentWay(facts({ hasKey: true }), 'setting'), 'key');
    assert.equal(currentWay(facts({ model: 'vscode-lm', chatModels: 1 }), undefined), 'editor');
  });

  it('the status bar names the way in a few words, says when none can run, and never shows a key', () => {
    const sample = wayStatus(facts({}), 'sample');
    assert.equal(sample.text, '$(play-circle) Recorded Sample');
    assert.ok(sample.ready);
    assert.match(sample.tooltip, /no model is called/);
    const none = wayStatus(facts({}), undefined);
    assert.equal(none.text, '$(circle-slash) No Model');
    assert.equal(none.ready, false);
    assert.match(none.tooltip, /no Anthropic API key is set\. Click to choose one\.$/);
    assert.equal(wayStatus(facts({ hasKey: true }), 'setting').text, '$(hubot) Anthropic');
    const lm = wayStatus(facts({ model: 'vscode-lm', lmFamily: 'gpt-4o', chatModels: 2 }), 'setting');
    assert.equal(lm.text, "$(hubot) Editor's Chat Model");
    assert.match(lm.tooltip, /family "gpt-4o"/);
    for (const w of [sample, none, lm]) assert.ok(w.text.replace(/\$\([a-z-]+\) /, '').length <= 24, `short in the bar: ${w.text}`);
  });

  it('the choices name the buttons the walkthrough and the dialog use, the current one marked', () => {
    const choices = wayChoices('sample');
    assert.deepEqual(
      choices.map((c) => c.label),
      [SET_API_KEY, USE_EDITOR_MODEL, TRY_SAMPLE],
    );
    assert.deepEqual(
      choices.filter((c) => c.description === 'current').map((c) => c.way),
      ['sample'],
    );
  });

  it("a ticket with no recording is not run by the sample: the words say why, and offer the two ways to run one's own", () => {
    const q = noRecordingQuestion('MINE-1');
    assert.equal(q.message, 'MINE-1 has no recorded answers, so the recorded sample cannot run it.');
    assert.deepEqual(q.actions, [SET_API_KEY, USE_EDITOR_MODEL, PICK_RECORDED]);
    assert.equal(wayOf(q.actions[2]), undefined, 'picking a sample ticket is not a way in: the way stays the sample');
    assert.equal(wayOf(q.actions[0]), 'key');
    assert.equal(wayOf(q.actions[1]), 'editor');
  });
});
