import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../src/core/errors';
import { draftTicket } from '../../../src/core/stages/authoring/draftTicket';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { AnthropicProvider } from '../../../src/node/models/anthropic/provider';
import { ScriptedModel } from '../../../src/node/models/scripted/scriptedModel';
import { ModelScript } from '../../../src/node/models/scripted/scriptSchema';
import { wireTicketChecks } from '../../../src/node/wire';
import { FakeAnthropic, rateLimited, reply, stall, text, toolUse } from '../../support/fakeAnthropic';
import { copyFixture, treeHash } from '../../support/tempWorkspace';
import { systemClock } from '../../../src/node/store/systemClock';

const ISSUE = 'GET /posts caps perPage at 100 silently. It should answer 400 with { error: "perPage max is 100" } instead.';

/** The drafter's answers, replayed in order. */
function model(drafter: unknown[]): ScriptedModel {
  return new ScriptedModel(ModelScript.parse({ drafter }), () => '', 'a test script');
}

describe("drafting a ticket from an issue's text", function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  let checks: ReturnType<typeof wireTicketChecks> & { clock: typeof systemClock };
  let blog1: Record<string, unknown>;
  const signal = new AbortController().signal;
  before(() => {
    ws = copyFixture();
    checks = { ...wireTicketChecks(ws.root), clock: systemClock };
    blog1 = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
  });
  after(() => {
    checks.diagnostics?.dispose?.();
    ws.dispose();
  });

  it('refuses an empty or huge issue text before any model call', async () => {
    const m = model([]);
    const input = { ticketPath: '.tickets/D-1.ticket.json', id: 'D-1' };
    await assert.rejects(
      draftTicket({ model: m, ...checks }, { ...input, issueText: '  \n ' }, signal),
      (e: Error) => e instanceof UserInputError && /the issue text is empty/.test(e.message),
    );
    await assert.rejects(
      draftTicket({ model: m, ...checks }, { ...input, issueText: 'x'.repeat(60_000) }, signal),
      (e: Error) => e instanceof UserInputError && /60000 characters/.test(e.message),
    );
  });

  it('bad answers (prose, not JSON; a ticket that breaks its schema; a JSON array) are refused and asked again, then one clear line', async () => {
    const m = model([
      { text: 'Sure! Here is the ticket you asked for, in words.' },
      { structured: { title: 'no scope, no plan' } },
      { text: '```json\n[1, 2]\n```' },
    ]);
    await assert.rejects(
      draftTicket({ model: m, ...checks }, { issueText: ISSUE, ticketPath: '.tickets/D-1.ticket.json', id: 'D-1' }, signal),
      (e: Error) => {
        assert.ok(e instanceof UserInputError, String(e));
        assert.ok(!e.message.includes('\n'), e.message);
        assert.match(
          e.message,
          /^the model gave no valid ticket in 3 asks \(1: the answer is not a JSON object and called no tool; 2: the ticket does not match its schema: \$\.description missing; expected string; .*; 3: the answer is not a JSON object and called no tool\); 3 model calls, \$0\.0000, 2 recovery steps; run the draft again/,
        );
        return true;
      },
    );
  });

  it('asks again with the reason, then returns the draft validated and rendered, in the format of its file, having written nothing', async () => {
    const before = treeHash(ws.root);
    const m = model([
      { text: 'I cannot decide.' },
      {
        expect: {
          attempt: 2,
          promptIncludes: ['Your previous answer was refused: the answer is not a JSON object', ISSUE, 'src/handlers/posts.ts'],
        },
        structured: { ...blog1, id: 'WHATEVER' },
      },
    ]);
    const draft = await draftTicket(
      { model: m, ...checks },
      { issueText: ISSUE, ticketPath: '.tickets/BLOG-50.ticket.yaml', id: 'BLOG-50' },
      signal,
    );
    assert.deepEqual(draft.rejected, ['the answer is not a JSON object and called no tool']);
    assert.equal(draft.ticket.id, 'BLOG-50', 'the id is the one asked for');
    assert.match(draft.text, /^# A Ticket Runner ticket/);
    assert.deepEqual(parseTicket('.tickets/BLOG-50.ticket.yaml', draft.text), draft.ticket);
    assert.deepEqual(
      draft.findings.filter((f) => f.severity === 'error'),
      [],
    );
    assert.equal(draft.rendered.length, 1);
    assert.match(draft.rendered[0]!.content, /rejects perPage above 100/);
    assert.equal(treeHash(ws.root), before, 'a draft writes nothing and runs nothing');
  });

  it("a draft that names a file the workspace lacks is returned with validate's error, not saved or run", async () => {
    const wrong = { ...blog1, scope: { write: ['src/handlers/posts.ts'], read: ['src/nowhere.ts'] } };
    const draft = await draftTicket(
      { model: model([{ structured: wrong }]), ...checks },
      { issueText: ISSUE, ticketPath: '.tickets/D-2.ticket.json', id: 'D-2' },
      signal,
    );
    assert.ok(
      draft.findings.some((f) => f.severity === 'error' && f.path.startsWith('$.scope')),
      JSON.stringify(draft.findings),
    );
    assert.equal((JSON.parse(draft.text) as { id?: unknown }).id, 'D-2');
  });

  describe("through the run's recovery rungs, as every model call", () => {
    const input = (id: string) => ({ issueText: ISSUE, ticketPath: `.tickets/${id}.ticket.json`, id });

    it('prose around the JSON: the one JSON object is taken out, in one call, and the record says so', async () => {
      const prose = `Sure! Here is the ticket you asked for.\n\n\`\`\`json\n${JSON.stringify(blog1)}\n\`\`\`\n\nLet me know if you want changes.`;
      const draft = await draftTicket({ model: model([{ text: prose }]), ...checks }, input('D-10'), signal);
      assert.equal(draft.ticket.id, 'D-10');
      assert.deepEqual(draft.rejected, []);
      assert.equal(draft.record.calls, 1);
      assert.equal(draft.record.rungs.length, 1, draft.record.rungs.join('\n'));
      assert.match(
        draft.record.rungs[0]!,
        /^answer 1 was text: its one JSON object was taken out of it \(\d+ characters around it dropped\)$/,
      );
      assert.match(draft.record.summary, /^1 model call, \$0\.0000, 1 recovery step$/);
    });

    it('not JSON at all, then a good answer: rung 2 re-asks with the reason, and the record names it', async () => {
      const m = model([
        { text: 'I would rather describe it in words: the handler should refuse large pages.' },
        {
          expect: { attempt: 2, promptIncludes: ['Your previous answer was refused: the answer is not a JSON object'] },
          structured: blog1,
        },
      ]);
      const draft = await draftTicket({ model: m, ...checks }, input('D-11'), signal);
      assert.equal(draft.ticket.id, 'D-11');
      assert.deepEqual(draft.rejected, ['the answer is not a JSON object and called no tool']);
      assert.equal(draft.record.calls, 2);
      assert.deepEqual(draft.record.rungs, [
        'rung 2 (a malformed answer): answer 1 was refused (the answer is not a JSON object and called no tool); asking again with the reason',
      ]);
    });

    it('an answer that never starts: rung 1 stops it at the start deadline and asks again with thinking on', async () => {
      const m = model([
        { expect: { attempt: 1, thinking: false, promptIncludes: [] }, fault: 'stall' },
        { expect: { attempt: 2, thinking: true, promptIncludes: [] }, structured: blog1 },
      ]);
      const started = Date.now();
      const draft = await draftTicket({ model: m, ...checks, recovery: { startDeadlineMs: 300 } }, input('D-12'), signal);
      assert.ok(Date.now() - started < 60_000);
      assert.equal(draft.ticket.id, 'D-12');
      assert.equal(draft.record.calls, 2, 'the stopped call is counted');
      assert.equal(draft.record.rungs.length, 1, draft.record.rungs.join('\n'));
      assert.match(
        draft.record.rungs[0]!,
        /^rung 1 \(the answer never became one\): the answer was stopped \(noStart\): no text after \d+ ms; asking again with thinking on$/,
      );
    });

    it('a draft that breaks the ticket schema every time: one clear line naming each refusal and the cost, nothing written', async () => {
      const before = treeHash(ws.root);
      const broken = { title: 'no scope, no plan' };
      await assert.rejects(
        draftTicket(
          { model: model([{ structured: broken }, { structured: broken }, { structured: { ...blog1, testPlan: 'later' } }]), ...checks },
          input('D-13'),
          signal,
        ),
        (e: Error) => {
          assert.ok(e instanceof UserInputError, String(e));
          assert.ok(!e.message.includes('\n'), e.message);
          assert.match(
            e.message,
            /^the model gave no valid ticket in 3 asks \(1: the ticket does not match its schema: \$\.description missing.*; 3: the ticket does not match its schema: \$\.testPlan .*\); 3 model calls, \$0\.0000, 2 recovery steps; run the draft again/,
          );
          return true;
        },
      );
      assert.equal(treeHash(ws.root), before, 'nothing was written');
    });

    it("a model that always fails: one line, no stack, nothing written; the text is the caller's to retry with", async () => {
      const before = treeHash(ws.root);
      const failing = model([{ fault: 'transportError' }]);
      await assert.rejects(draftTicket({ model: failing, ...checks }, input('D-14'), signal), (e: Error) => {
        assert.ok(e instanceof UserInputError, String(e));
        assert.equal(
          e.message,
          'the model failed while drafting (scripted model: recorded transport failure (drafter #1)); 1 model call, $0.0000, no rung fired; nothing was written: run the draft again',
        );
        return true;
      });
      assert.equal(treeHash(ws.root), before);
    });

    describe('against the fake Messages API with the real SDK', () => {
      let fake: FakeAnthropic;
      before(async () => {
        fake = await FakeAnthropic.start();
      });
      after(async () => fake.close());
      afterEach(() => fake.reset());
      const provider = () => new AnthropicProvider({ apiKey: 'sk-ant-api03-DRAFT-test-key-0123456789abcdef', baseURL: fake.baseURL });

      it('a 429 then the tool answer: the SDK retries, the call is one, its retry is on the record', async () => {
        fake.enqueue(rateLimited(), reply([toolUse('draft_ticket', blog1)], { stopReason: 'tool_use' }));
        const draft = await draftTicket({ model: provider(), ...checks }, input('D-15'), signal);
        assert.equal(draft.ticket.id, 'D-15');
        assert.equal(fake.requests.length, 2, 'the 429 and the retry');
        assert.equal(draft.record.calls, 1);
        assert.equal(draft.record.retries, 1);
        assert.ok(draft.record.costUsd > 0, 'the real provider prices the call');
        assert.equal(fake.pending, 0);
      });

      it('the Drafter is asked for two cases per criterion, the last held out; a draft with one case for a criterion says so, and holds nothing of it out', async () => {
        fake.enqueue(reply([toolUse('draft_ticket', blog1)], { stopReason: 'tool_use' }));
        const draft = await draftTicket({ model: provider(), ...checks }, input('D-17'), signal);
        const system = JSON.stringify(fake.requests[0]?.body['system']);
        assert.match(system, /at least two test cases/);
        assert.match(system, /the last case of each criterion is held out from the Coder/);
        // BLOG-1 has one case for each of its two criteria.
        assert.deepEqual(
          draft.findings.filter((f) => f.severity === 'information' && /held out/.test(f.message)).map((f) => [f.path, f.message]),
          ['AC1', 'AC2'].map((id, i) => [
            `$.acceptance[${i}]`,
            `${id} has one test case, so none of it is held out from the Coder and a fix shaped to that case passes: add a case with another input`,
          ]),
        );
        const two = {
          ...blog1,
          testPlan: {
            files: (blog1.testPlan as { files: { cases: { criterion?: string }[] }[] }).files.map((f) => ({
              ...f,
              cases: [...f.cases, ...f.cases.map((c, i) => ({ ...c, name: `another input ${i}` }))],
            })),
          },
        };
        fake.enqueue(reply([toolUse('draft_ticket', two)], { stopReason: 'tool_use' }));
        const wide = await draftTicket({ model: provider(), ...checks }, input('D-18'), signal);
        assert.deepEqual(
          wide.findings.filter((f) => /held out/.test(f.message)),
          [],
          'two cases each: the last of each is held out, nothing to say',
        );
      });

      it('a stream that stalls: rung 1 stops it and asks again, with thinking on', async () => {
        fake.enqueue(stall(), reply([text(`Here it is:\n${JSON.stringify(blog1)}`)]));
        const draft = await draftTicket({ model: provider(), ...checks, recovery: { startDeadlineMs: 300 } }, input('D-16'), signal);
        assert.equal(draft.ticket.id, 'D-16');
        assert.deepEqual(fake.requests[1]?.body['thinking'], { type: 'enabled', budget_tokens: 8000 });
        assert.match(draft.record.rungs.join('\n'), /rung 1 .*noStart/);
        assert.equal(fake.pending, 0);
      });
    });
  });
});
