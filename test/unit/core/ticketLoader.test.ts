import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TicketValidationError } from '../../../src/core/errors';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { ticketJsonSchemaText } from '../../../src/core/schema/jsonSchema';
import { FIXTURE, REPO_ROOT } from '../../support/tempWorkspace';

const valid = () => JSON.parse(readFileSync(path.join(FIXTURE, '.tickets', 'BLOG-1.ticket.json'), 'utf8')) as Record<string, unknown>;

function problemsOf(text: string): TicketValidationError {
  try {
    parseTicket('.tickets/BAD.ticket.json', text);
  } catch (err) {
    assert.ok(err instanceof TicketValidationError, `expected a TicketValidationError, got ${String(err)}`);
    return err;
  }
  assert.fail('the ticket was accepted');
}

describe('ticket loader', () => {
  it('accepts every fixture ticket', () => {
    for (const id of ['BLOG-1', 'BLOG-2', 'BLOG-3', 'BLOG-4', 'BLOG-5']) {
      const t = parseTicket(id, readFileSync(path.join(FIXTURE, '.tickets', `${id}.ticket.json`), 'utf8'));
      assert.equal(t.id, id);
    }
  });

  it('names the file, the JSON path and what was expected', () => {
    const t = valid();
    (t.scope as Record<string, unknown>).write = 'src/handlers/posts.ts';
    const err = problemsOf(JSON.stringify(t));
    assert.match(err.message, /^\.tickets\/BAD\.ticket\.json: invalid ticket/);
    assert.deepEqual(
      err.problems.map((p) => p.path),
      ['$.scope.write'],
    );
    assert.match(err.problems[0]!.message, /expected array/);
    assert.doesNotMatch(err.message, /\n\s+at .*\.ts:\d+/, 'no stack trace in the message');
  });

  it('reports a missing field and an unknown key', () => {
    const t = valid();
    delete t.title;
    t.colour = 'blue';
    const err = problemsOf(JSON.stringify(t));
    const byPath = Object.fromEntries(err.problems.map((p) => [p.path, p.message]));
    assert.match(byPath['$.title'] ?? '', /missing; expected string/);
    assert.match(byPath['$'] ?? '', /unknown key "colour"/);
  });

  it('says a file that is not JSON is not JSON, naming the file', () => {
    const err = problemsOf('{\n  "id": "X",\n  "title": oops\n}');
    assert.equal(err.problems[0]!.path, '$');
    assert.match(err.message, /^\.tickets\/BAD\.ticket\.json: invalid ticket: at \$: not valid JSON/);
  });

  it('rejects a criterion id the acceptance list does not have', () => {
    const t = valid();
    const plan = t.testPlan as { files: { cases: { criterion?: string }[] }[] };
    plan.files[0]!.cases[0]!.criterion = 'AC9';
    const err = problemsOf(JSON.stringify(t));
    assert.equal(err.problems[0]!.path, '$.testPlan.files[0].cases[0].criterion');
    assert.match(err.problems[0]!.message, /"AC9" is not one of the acceptance ids \(AC1, AC2\)/);
  });

  it('ships the JSON Schema the editor validates tickets with, up to date', () => {
    const committed = readFileSync(path.join(REPO_ROOT, 'schemas', 'ticket.schema.json'), 'utf8');
    assert.equal(committed, ticketJsonSchemaText(), 'schemas/ticket.schema.json is stale: run npm run schema');
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      contributes: { jsonValidation: { fileMatch: string; url: string }[] };
    };
    assert.deepEqual(
      pkg.contributes.jsonValidation.find((j) => j.url === './schemas/ticket.schema.json')?.fileMatch,
      '*.ticket.json',
      'every *.ticket.json, in any folder',
    );
  });
});
