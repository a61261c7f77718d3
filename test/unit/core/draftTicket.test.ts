import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../src/core/errors';
import { draftTicket } from '../../../src/core/stages/draftTicket';
import { parseTicket } from '../../../src/core/stages/ticketLoader';
import { ScriptedModel } from '../../../src/node/models/scripted/scriptedModel';
import { ModelScript } from '../../../src/node/models/scripted/scriptSchema';
import { wireTicketChecks } from '../../../src/node/wire';
import { copyFixture, treeHash } from '../../support/tempWorkspace';

const ISSUE = 'GET /posts caps perPage at 100 silently. It should answer 400 with { error: "perPage max is 100" } instead.';

/** The drafter's answers, replayed in order. */
function model(drafter: unknown[]): ScriptedModel {
  return new ScriptedModel(ModelScript.parse({ drafter }), () => '', 'a test script');
}

describe('drafting a ticket from an issue\'s text', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  let checks: ReturnType<typeof wireTicketChecks>;
  let blog1: Record<string, unknown>;
  const signal = new AbortController().signal;
  before(() => {
    ws = copyFixture();
    checks = wireTicketChecks(ws.root);
    blog1 = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
  });
  after(() => {
    checks.diagnostics?.dispose?.();
    ws.dispose();
  });

  it('refuses an empty or huge issue text before any model call', async () => {
    const m = model([]);
    const input = { ticketPath: '.tickets/D-1.ticket.json', id: 'D-1' };
    await assert.rejects(draftTicket({ model: m, ...checks }, { ...input, issueText: '  \n ' }, signal), (e: Error) => e instanceof UserInputError && /the issue text is empty/.test(e.message));
    await assert.rejects(draftTicket({ model: m, ...checks }, { ...input, issueText: 'x'.repeat(60_000) }, signal), (e: Error) => e instanceof UserInputError && /60000 characters/.test(e.message));
  });

  it('bad answers (prose, not JSON; a ticket that breaks its schema; a JSON array) are refused and asked again, then one clear line', async () => {
    const m = model([{ text: 'Sure! Here is the ticket you asked for, in words.' }, { structured: { title: 'no scope, no plan' } }, { text: '```json\n[1, 2]\n```' }]);
    await assert.rejects(draftTicket({ model: m, ...checks }, { issueText: ISSUE, ticketPath: '.tickets/D-1.ticket.json', id: 'D-1' }, signal), (e: Error) => {
      assert.ok(e instanceof UserInputError, String(e));
      assert.ok(!e.message.includes('\n'), e.message);
      assert.match(e.message, /^the model gave no valid ticket in 3 asks \(1: the answer is not a JSON object and called no tool; 2: the ticket does not match its schema: \$\.description missing; expected string; .*; 3: the answer is not a JSON object and called no tool\); run the draft again/);
      return true;
    });
  });

  it('asks again with the reason, then returns the draft validated and rendered, in the format of its file, having written nothing', async () => {
    const before = treeHash(ws.root);
    const m = model([{ text: 'I cannot decide.' }, { expect: { attempt: 2, promptIncludes: ['Your previous answer was refused: the answer is not a JSON object', ISSUE, 'src/handlers/posts.ts'] }, structured: { ...blog1, id: 'WHATEVER' } }]);
    const draft = await draftTicket({ model: m, ...checks }, { issueText: ISSUE, ticketPath: '.tickets/BLOG-50.ticket.yaml', id: 'BLOG-50' }, signal);
    assert.deepEqual(draft.rejected, ['the answer is not a JSON object and called no tool']);
    assert.equal(draft.ticket.id, 'BLOG-50', 'the id is the one asked for');
    assert.match(draft.text, /^# A Ticket Runner ticket/);
    assert.deepEqual(parseTicket('.tickets/BLOG-50.ticket.yaml', draft.text), draft.ticket);
    assert.deepEqual(draft.findings.filter((f) => f.severity === 'error'), []);
    assert.equal(draft.rendered.length, 1);
    assert.match(draft.rendered[0]!.content, /rejects perPage above 100/);
    assert.equal(treeHash(ws.root), before, 'a draft writes nothing and runs nothing');
  });

  it('a draft that names a file the workspace lacks is returned with validate\'s error, not saved or run', async () => {
    const wrong = { ...blog1, scope: { write: ['src/handlers/posts.ts'], read: ['src/nowhere.ts'] } };
    const draft = await draftTicket({ model: model([{ structured: wrong }]), ...checks }, { issueText: ISSUE, ticketPath: '.tickets/D-2.ticket.json', id: 'D-2' }, signal);
    assert.ok(draft.findings.some((f) => f.severity === 'error' && f.path.startsWith('$.scope')), JSON.stringify(draft.findings));
    assert.equal(JSON.parse(draft.text).id, 'D-2');
  });
});
