import { strict as assert } from 'node:assert';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT } from '../../../src/cli/main';
import { parsePlan } from '../../../src/core/plan/planLoader';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { cli } from '../../support/cli';
import { FakeAnthropic, reply, stall, text, toolUse, type FakeReply, type RecordedRequest } from '../../support/fakeAnthropic';
import { anthropicEnv } from '../../support/fakeApiRuns';
import { SPECKIT_ORDER } from '../../support/taskListOrders';
import { copyFixture, REPO_ROOT, treeHash } from '../../support/tempWorkspace';

const KEY = 'sk-ant-api03-PLAN-test-key-0123456789abcdef';

/** The text of a request's prompt. */
const promptOf = (r: RecordedRequest) => JSON.stringify(r.body['messages']);

/** The task a Drafter request is about, as the prompt names it ("Task T004 of ..."). */
const taskOf = (r: RecordedRequest) => /Task (\S+) of /.exec(promptOf(r))?.[1];

/** A plan's order as task ids: each task, and the tasks its ticket runs after. */
function taskOrder(planText: string, file: string): Record<string, string[]> {
  const plan = parsePlan(file, planText);
  const taskOfTicket = new Map(plan.tickets.map((t) => [path.basename(t.ticket).replace(/\.ticket\.yaml$/, ''), t.task!]));
  return Object.fromEntries(plan.tickets.map((t) => [t.task!, t.after.map((a) => taskOfTicket.get(a)!)]));
}

describe("ticket-runner plan draft: a ticket per task of a spec's task list, and the plan that orders them, through the Messages API", function () {
  this.timeout(300_000);
  let fake: FakeAnthropic;
  let restoreEnv: () => void;
  let ws: ReturnType<typeof copyFixture>;
  let blog1: Record<string, unknown>;
  /** The answer for each task: a bad one for the tasks named, BLOG-1's ticket for every other. */
  const answering = (bad: Record<string, Record<string, unknown> | 'prose'>) => (r: RecordedRequest) => {
    const answer = bad[taskOf(r) ?? ''];
    return answer === 'prose'
      ? (reply([text('I would rather not draft that one.')]) as FakeReply)
      : reply([toolUse('draft_ticket', answer ?? blog1)], { stopReason: 'tool_use' });
  };
  before(async () => {
    fake = await FakeAnthropic.start();
    restoreEnv = anthropicEnv(KEY, fake.baseURL);
    ws = copyFixture();
    blog1 = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;
    cpSync(path.join(REPO_ROOT, 'test/fixtures/tasks'), path.join(ws.root, 'specs'), { recursive: true });
  });
  after(async () => {
    restoreEnv();
    await fake.close();
    ws.dispose();
  });
  afterEach(() => fake.reset());

  it('Spec Kit: [P] and the phases become after, a task with no valid draft is listed and bridged, and nothing runs', async () => {
    fake.respondWith(answering({ T004: 'prose' }));
    const r = await cli(['plan', 'draft', '--from', 'specs/speckit/tasks.md', '--id', 'RL-PLAN', '--workspace', ws.root]);
    assert.equal(r.code, EXIT.error, 'a task has no ticket in the plan');
    assert.equal(fake.requests.length, 13, 'one call per open task, and three asks for T004');
    const planFile = path.join(ws.root, '.tickets/RL-PLAN.plan.yaml');
    const planText = readFileSync(planFile, 'utf8');
    assert.equal(r.out, planText.replace(/\n$/, ''));
    // T004 has no ticket: T005 waits for what T004 waited for.
    const { T004: bridged, ...others } = SPECKIT_ORDER;
    assert.deepEqual(taskOrder(planText, '.tickets/RL-PLAN.plan.yaml'), { ...others, T005: bridged });
    const plan = parsePlan('.tickets/RL-PLAN.plan.yaml', planText);
    assert.deepEqual(
      plan.tickets.slice(0, 3).map((t) => t.ticket),
      ['.tickets/BLOG-16.ticket.yaml', '.tickets/BLOG-17.ticket.yaml', '.tickets/BLOG-18.ticket.yaml'],
      'the next free ids; T004 took none',
    );
    for (const t of plan.tickets)
      assert.equal(parseTicket(t.ticket, readFileSync(path.join(ws.root, t.ticket), 'utf8')).id, path.basename(t.ticket, '.ticket.yaml'));
    assert.match(
      r.err,
      /^T004: no ticket: the model gave no valid ticket in 3 asks \(1: the answer is not a JSON object and called no tool;/m,
    );
    const notes = plan.source!.notes;
    assert.equal(notes[0], 'T001 is checked as done in specs/speckit/tasks.md: left out');
    assert.match(
      notes[1]!,
      /^T004: no valid ticket was drafted \(the model gave no valid ticket in 3 asks .*\); left out, and what runs after it waits for what it waited for$/,
    );
    assert.ok(notes.includes("specs/speckit/tasks.md line 37: T009: unknown marker [X], kept in the task's text"));
    assert.match(r.err, /^note: specs\/speckit\/tasks\.md line 39: a task with no id: kept as line-39$/m);
    const t7 = fake.requests.find((q) => taskOf(q) === 'T007')!;
    assert.match(promptOf(t7), /Files the task names \(the scope to start from\):\\n- src\/readingList\/validate\.ts/);
    assert.equal(existsSync(path.join(ws.root, '.ticket-runner', 'runs')), false, 'no run was started');
    assert.equal(existsSync(path.join(ws.root, 'test/ticket/BLOG-1.test.ts')), false, 'no test was written');

    const before = treeHash(ws.root);
    fake.reset();
    const again = await cli(['plan', 'draft', '--from', 'specs/speckit/tasks.md', '--id', 'RL-PLAN', '--workspace', ws.root]);
    assert.equal(again.code, EXIT.error);
    assert.equal(
      again.err,
      'ticket-runner: .tickets/RL-PLAN.plan.yaml already exists: a plan is never drafted over another; pick another --id',
    );
    assert.equal(fake.requests.length, 0, 'refused before any model call');
    assert.equal(treeHash(ws.root), before);
  });

  it('Kiro: tasks in order with their linked EARS criteria; a draft validate finds an error in is written, listed and left out of the plan', async () => {
    fake.respondWith(answering({ '3.1': { ...blog1, refs: [{ symbol: 'NoSuchThing', file: 'src/handlers/posts.ts' }] } }));
    const r = await cli(['plan', 'draft', '--from', 'specs/kiro/tasks.md', '--id', 'KIRO-PLAN', '--workspace', ws.root, '--json']);
    assert.equal(r.code, EXIT.error, r.err);
    const out = JSON.parse(r.out) as {
      plan: string;
      tickets: { taskId: string; path: string; ok: boolean }[];
      notes: string[];
      written: string[];
    };
    assert.equal(out.plan, '.tickets/KIRO-PLAN.plan.yaml');
    const bad = out.tickets.find((t) => t.taskId === '3.1')!;
    assert.equal(bad.ok, false);
    assert.ok(out.written.includes(bad.path), 'the draft with errors is kept for the user to fix');
    assert.match(
      out.notes.find((n) => n.startsWith('3.1: '))!,
      /was drafted with errors: \$\.refs\[0\]/,
    );
    const planText = readFileSync(path.join(ws.root, out.plan), 'utf8');
    assert.deepEqual(taskOrder(planText, out.plan), { '2.1': [], '2.2': ['2.1'], '3.2': ['2.2'], '4': ['3.2'], 'line-23': ['4'] });
    assert.equal(parsePlan(out.plan, planText).source?.requirements, 'specs/kiro/requirements.md', 'the requirements beside the tasks');
    const t22 = promptOf(fake.requests.find((q) => taskOf(q) === '2.2')!);
    assert.match(t22, /WHEN a reader saves a URL the list already holds THEN the reading list SHALL keep one entry for it/);
    assert.match(t22, /part of 2\. Store links/);
  });

  it('a cut answer and a stalled one are asked again, and every task still gets its ticket', async () => {
    const asked = new Map<string, number>();
    fake.respondWith((r) => {
      const task = taskOf(r) ?? '';
      const n = (asked.get(task) ?? 0) + 1;
      asked.set(task, n);
      // The answer stops at the token limit: its tool call may hold half a ticket, and is refused.
      if (task === '2.1' && n === 1)
        return reply([toolUse('draft_ticket', { id: blog1['id'], title: blog1['title'] })], { stopReason: 'max_tokens' });
      // The stream opens and sends nothing.
      if (task === '2.2' && n === 1) return stall();
      return reply([toolUse('draft_ticket', blog1)], { stopReason: 'tool_use' });
    });
    const r = await cli(['plan', 'draft', '--from', 'specs/kiro/tasks.md', '--id', 'CUT-PLAN', '--workspace', ws.root, '--json']);
    const out = JSON.parse(r.out) as {
      tickets: { taskId: string; ok: boolean; record: { calls: number; summary: string } }[];
      failed: unknown[];
    };
    assert.deepEqual(out.failed, [], r.err);
    const byTask = new Map(out.tickets.map((t) => [t.taskId, t]));
    for (const id of ['2.1', '2.2']) {
      assert.equal(byTask.get(id)?.ok, true, `${id}: ${JSON.stringify(byTask.get(id))}`);
      assert.equal(asked.get(id), 2, `${id} was asked twice`);
      assert.equal(byTask.get(id)!.record.calls, 2);
    }
    assert.match(byTask.get('2.1')!.record.summary, /recovery step/);
    assert.match(byTask.get('2.2')!.record.summary, /recovery step/);
    assert.equal(asked.get('3.2'), 1, 'the other tasks are asked once');
  });
});
