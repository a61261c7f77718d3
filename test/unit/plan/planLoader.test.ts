import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { PlanValidationError } from '../../../src/core/errors';
import { planText } from '../../../src/core/plan/planFiles';
import { parsePlan } from '../../../src/core/plan/planLoader';
import { planJsonSchemaText } from '../../../src/core/schema/jsonSchema';
import { REPO_ROOT } from '../../support/tempWorkspace';

const YAML_PLAN = `id: SHOP-PLAN
title: Tags on posts
tickets:
  - ticket: SHOP-1
  - ticket: .tickets/SHOP-2.ticket.yaml
    after: [SHOP-1]
  - ticket: SHOP-3
    after: [SHOP-1]
  - ticket: SHOP-4
    after: [SHOP-2, SHOP-3]
`;

function problemsOf(file: string, text: string): PlanValidationError {
  try {
    parsePlan(file, text);
  } catch (err) {
    assert.ok(err instanceof PlanValidationError, `expected a PlanValidationError, got ${String(err)}`);
    return err;
  }
  assert.fail('the plan was accepted');
}

/** A plan's JSON text with these entries. */
const planJson = (tickets: { ticket: string; after?: string[] }[]) => JSON.stringify({ id: 'P', title: 'A plan', tickets });

describe('plan loader', () => {
  it('reads a plan from YAML or JSON, naming a ticket by id or by the path of its file', () => {
    const plan = parsePlan('.tickets/SHOP-PLAN.plan.yaml', YAML_PLAN);
    assert.equal(plan.tickets.length, 4);
    assert.deepEqual(plan.tickets[0]!.after, [], 'after defaults to none');
    assert.deepEqual(parsePlan('.tickets/SHOP-PLAN.plan.json', JSON.stringify(plan)), plan);
  });

  it('writes a plan as text that reads back the same, in YAML with one line per after, or JSON', () => {
    const plan = parsePlan('.tickets/SHOP-PLAN.plan.yaml', YAML_PLAN);
    const yaml = planText(plan, 'yaml');
    assert.match(yaml, /^ {4}after: \[SHOP-2, SHOP-3\]$/m);
    assert.deepEqual(parsePlan('.tickets/SHOP-PLAN.plan.yaml', yaml), plan);
    assert.deepEqual(parsePlan('.tickets/SHOP-PLAN.plan.json', planText(plan, 'json')), plan);
  });

  it('names the file, the JSON path and what was expected; YAML problems keep their line', () => {
    const noTickets = problemsOf('.tickets/P.plan.json', JSON.stringify({ id: 'P', title: 'x', tickets: [], colour: 'red' }));
    assert.match(noTickets.message, /^\.tickets\/P\.plan\.json: invalid plan: /);
    const byPath = Object.fromEntries(noTickets.problems.map((p) => [p.path, p.message]));
    assert.match(byPath['$.tickets'] ?? '', />=1/);
    assert.match(byPath['$'] ?? '', /unknown key "colour"/);
    const tab = problemsOf('.tickets/P.plan.yaml', 'id: P\ntitle: x\ntickets:\n\t- ticket: A\n');
    assert.match(tab.message, /invalid plan: at \$: not valid YAML \(line 4, column 1\)/);
  });

  it('refuses a ticket listed twice, an after that names no ticket of the plan, and a ticket after itself, each with its fix', () => {
    const twice = problemsOf('p.plan.json', planJson([{ ticket: 'A' }, { ticket: '.tickets/A.ticket.json' }]));
    assert.deepEqual(twice.problems, [
      {
        path: '$.tickets[1].ticket',
        message: "A is already the plan's ticket 1: list each ticket once, with every ticket it runs after in that one entry's after",
      },
    ]);
    const unknown = problemsOf('p.plan.json', planJson([{ ticket: 'A' }, { ticket: 'B', after: ['A', 'Z'] }]));
    assert.deepEqual(unknown.problems, [
      {
        path: '$.tickets[1].after[1]',
        message: 'Z is no ticket of this plan (its tickets: A, B): add an entry for it or remove it from after',
      },
    ]);
    const self = problemsOf('p.plan.json', planJson([{ ticket: 'A', after: ['A'] }]));
    assert.deepEqual(self.problems, [{ path: '$.tickets[0].after[0]', message: 'A is after itself: remove it from its own after' }]);
  });

  it('refuses a cycle, naming every ticket around it', () => {
    const err = problemsOf(
      'p.plan.json',
      planJson([{ ticket: 'A' }, { ticket: 'B', after: ['A', 'D'] }, { ticket: 'C', after: ['B'] }, { ticket: 'D', after: ['C'] }]),
    );
    assert.deepEqual(err.problems, [
      {
        path: '$.tickets[1].after',
        message:
          'the tickets wait for each other in a cycle (B after D after C after B), so none of them can start: remove one of those after entries',
      },
    ]);
  });

  it('ships the JSON Schema the editor validates plans with, up to date, for *.plan.json, *.plan.yaml and *.plan.yml', () => {
    const committed = readFileSync(path.join(REPO_ROOT, 'schemas', 'plan.schema.json'), 'utf8');
    assert.equal(committed, planJsonSchemaText(), 'schemas/plan.schema.json is stale: run npm run schema');
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      contributes: Record<'jsonValidation' | 'yamlValidation', { fileMatch: string; url: string }[]>;
    };
    const matched = [...pkg.contributes.jsonValidation, ...pkg.contributes.yamlValidation]
      .filter((v) => v.url === './schemas/plan.schema.json')
      .map((v) => v.fileMatch);
    assert.deepEqual(matched, ['*.plan.json', '*.plan.yaml', '*.plan.yml']);
    assert.match(readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8'), /^!schemas\/plan\.schema\.json$/m, 'the .vsix keeps it');
  });
});
