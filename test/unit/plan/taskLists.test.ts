import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../src/core/errors';
import { planFromTasks } from '../../../src/core/plan/planFromTasks';
import { parsePlan } from '../../../src/core/plan/planLoader';
import { planWaves } from '../../../src/core/plan/planOrder';
import { readTaskList } from '../../../src/core/plan/readTaskList';
import { taskIssueText } from '../../../src/core/plan/taskIssue';
import { SPECKIT_ORDER } from '../../support/taskListOrders';
import { REPO_ROOT } from '../../support/tempWorkspace';

const fixture = (name: string) => readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'tasks', name), 'utf8');
const speckit = () => readTaskList('tasks.md', fixture('speckit/tasks.md'));
const kiro = (requirements = true) =>
  readTaskList(
    'tasks.md',
    fixture('kiro/tasks.md'),
    requirements ? { file: 'requirements.md', text: fixture('kiro/requirements.md') } : undefined,
  );
const afterOf = (list: ReturnType<typeof speckit>) => Object.fromEntries(list.tasks.map((t) => [t.id, t.after]));

describe("a spec's task list, read", () => {
  it('Spec Kit: phases run in turn, [P] tasks wait only for the phase before, the others for all before them in the phase', () => {
    const list = speckit();
    assert.equal(list.format, 'speckit');
    assert.deepEqual(afterOf(list), SPECKIT_ORDER);
    const t7 = list.tasks.find((t) => t.id === 'T007')!;
    assert.equal(t7.text, 'Refuse URLs that do not parse in `src/readingList/validate.ts`');
    assert.deepEqual(t7.paths, ['src/readingList/validate.ts']);
    assert.deepEqual(t7.context, ['Phase 3: User Story 1 - Save a link (Priority: P1)', 'user story US1']);
    assert.deepEqual(list.tasks.find((t) => t.id === 'T011')!.paths, ['docs/reading-list.md'], 'a URL is no path');
  });

  it('Spec Kit: a checked task is done and left out; unknown markers and a task with no id are kept and warned of', () => {
    const list = speckit();
    assert.deepEqual(list.done, [{ id: 'T001', line: 12, text: 'Create the folder src/readingList/ and its index' }]);
    assert.deepEqual(list.warnings, [
      { line: 37, message: "T009: unknown marker [X], kept in the task's text" },
      { line: 38, message: "T010: unknown marker [Q7], kept in the task's text" },
      { line: 39, message: 'a task with no id: kept as line-39' },
    ]);
    const byId = Object.fromEntries(list.tasks.map((t) => [t.id, t.text]));
    assert.equal(byId['T009'], '[X] Order links by the time they were saved in src/readingList/sort.ts');
    assert.equal(
      byId['T010'],
      '[Q7] Show the list as text in src/readingList/render.ts',
      'an unknown marker is not [P]: T010 runs in order',
    );
    assert.equal(byId['line-39'], 'Say in README.md how to save a link');
  });

  it('Kiro: tasks in order, a sub-task after its previous sibling; a task with sub-tasks is their heading, its links theirs', () => {
    const list = kiro();
    assert.equal(list.format, 'kiro');
    assert.deepEqual(afterOf(list), { '2.1': [], '2.2': ['2.1'], '3.1': ['2.2'], '3.2': ['3.1'], '4': ['3.2'], 'line-23': ['4'] });
    const [t21, , , t32] = list.tasks;
    assert.deepEqual(t21!.context, ['part of 2. Store links', '2: Links live in memory for now']);
    assert.deepEqual(t21!.requirements, ['1.1']);
    assert.deepEqual(t21!.paths, ['src/readingList/store.ts']);
    assert.deepEqual(t32!.requirements, ['2.1', '2.2']);
    assert.deepEqual(t32!.context, ['part of 3. List links newest first', 'optional in the task list (- [ ]*)']);
    assert.deepEqual(
      list.done.map((d) => d.id),
      ['1'],
    );
    assert.deepEqual(list.warnings, [
      { line: 21, message: "4: unknown marker [later], kept in the task's text" },
      { line: 21, message: '4: links 3.1, which requirements.md does not have; drafted without it' },
      { line: 23, message: 'a task with no id: kept as line-23' },
    ]);
  });

  it("Kiro: requirements.md's EARS criteria by the ids tasks link them with, and the Drafter's issue text carries them", () => {
    const list = kiro();
    assert.deepEqual(list.criteria.get('1.2'), {
      id: '1.2',
      text: 'WHEN a reader saves a URL the list already holds THEN the reading list SHALL keep one entry for it',
      requirement: 'Requirement 1: Saving links. As a reader, I want to save a link, so that I can read it later.',
    });
    assert.deepEqual([...list.criteria.keys()], ['1.1', '1.2', '2.1', '2.2']);
    assert.equal(
      taskIssueText('specs/tasks.md', list.tasks[0]!, list.criteria),
      [
        'Task 2.1 of specs/tasks.md (part of 2. Store links; 2: Links live in memory for now):',
        'Write the link store',
        '',
        'Details:',
        '- Keep links in src/readingList/store.ts, with the time each was saved',
        '',
        'Files the task names (the scope to start from):',
        '- src/readingList/store.ts',
        '',
        'Acceptance criteria the task must meet, from the requirements:',
        '- 1.1 (Requirement 1: Saving links. As a reader, I want to save a link, so that I can read it later.): WHEN a reader saves a valid URL THEN the reading list SHALL keep it with the time it was saved',
      ].join('\n'),
    );
    assert.match(kiro(false).warnings.find((w) => w.line === 9)!.message, /^2\.1: links 1\.1; give --requirements requirements\.md/);
  });

  it('says a file with no task of either format is not a task list; an unknown checkbox mark is warned of and read as open', () => {
    assert.throws(
      () => readTaskList('notes.md', '# Notes\n\n- [ ] buy milk\n'),
      (e: Error) => e instanceof UserInputError && /^notes\.md has no task this can read/.test(e.message),
    );
    const odd = readTaskList('tasks.md', '## Phase 1: Setup\n\n- [~] T001 Start\n- [ ] T002 Go on\n');
    assert.deepEqual(odd.warnings, [{ line: 3, message: 'T001: unknown checkbox mark [~]; read as not done' }]);
    assert.deepEqual(afterOf(odd), { T001: [], T002: ['T001'] });
  });

  it('the plan of the drafted tickets keeps the order through a task with no valid draft, and says what it left out', () => {
    const list = speckit();
    const outcomes = list.tasks.map((t) =>
      t.id === 'T004' || t.id === 'T005'
        ? { taskId: t.id, failed: 'the model gave no valid ticket' }
        : { taskId: t.id, ticket: `.tickets/RL-${t.id}.ticket.yaml` },
    );
    const plan = planFromTasks({ id: 'RL-PLAN', title: 'Reading list', file: 'specs/tasks.md', list, outcomes });
    assert.deepEqual(parsePlan('.tickets/RL-PLAN.plan.json', JSON.stringify(plan)), plan, 'a valid plan');
    const after = new Map(plan.tickets.map((t) => [t.task, t.after]));
    assert.deepEqual(
      after.get('T006'),
      ['RL-T002', 'RL-T003'],
      'T006 waited for T005, which waited for T004, which waited for T002 and T003',
    );
    assert.deepEqual(planWaves(plan, '.tickets/RL-PLAN.plan.json')[0], ['RL-T002', 'RL-T003']);
    assert.equal(plan.tickets.length, 9);
    assert.deepEqual(plan.source!.notes.slice(0, 3), [
      'T001 is checked as done in specs/tasks.md: left out',
      'T004: no valid ticket was drafted (the model gave no valid ticket); left out, and what runs after it waits for what it waited for',
      'T005: no valid ticket was drafted (the model gave no valid ticket); left out, and what runs after it waits for what it waited for',
    ]);
    assert.equal(plan.source!.notes.length, 6, 'the three warnings too');
  });
});
