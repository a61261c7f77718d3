import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../src/core/errors';
import { loadTicket } from '../../../src/core/loop/runSteps';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { newTicketText, placeholderPaths, TEMPLATE_MARK } from '../../../src/core/ticket/ticketTemplate';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { validateTicket } from '../../../src/core/stages/authoring/validateTicket';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { copyFixture } from '../../support/tempWorkspace';

describe('a new ticket from the template', () => {
  it('is a valid ticket from the first keystroke, importing the file it is about', () => {
    const text = newTicketText({
      id: 'BLOG-99',
      title: 'Sort posts by date',
      scopeFile: 'src/handlers/posts.ts',
      language: 'ts',
      esm: false,
    });
    const ticket = parseTicket('.tickets/BLOG-99.ticket.json', text);
    assert.deepEqual(ticket.scope.write, ['src/handlers/posts.ts']);
    assert.equal(ticket.testPlan.files[0]!.path, 'test/ticket/BLOG-99.test.ts');
    assert.deepEqual(ticket.testPlan.files[0]!.imports[0], { from: '../../src/handlers/posts', names: [] });
    const esm = parseTicket('t', newTicketText({ id: 'S-1', title: 't', scopeFile: 'lib/cart.ts', language: 'ts', esm: true }));
    assert.equal(esm.testPlan.files[0]!.imports[0]!.from, '../../lib/cart.js');
    assert.deepEqual(parseTicket('t', newTicketText({ id: 'S-2', title: 't', language: 'js', esm: false })).testPlan.files[0]!.imports, []);
  });

  it('cannot pass as it is: validate and a run both refuse its placeholders, naming where they are', async () => {
    const text = newTicketText({
      id: 'BLOG-99',
      title: 'Sort posts by date',
      scopeFile: 'src/handlers/posts.ts',
      language: 'ts',
      esm: false,
    });
    const where = placeholderPaths(JSON.parse(text));
    for (const p of [
      '$.description',
      '$.acceptance[0].text',
      '$.testPlan.files[0].cases[0].name',
      '$.testPlan.files[0].cases[0].expect[0].actual',
    ])
      assert.ok(where.includes(p), p);
    const ws = copyFixture();
    try {
      writeFileSync(path.join(ws.root, '.tickets/BLOG-99.ticket.json'), text);
      const workspace = new FsWorkspace(ws.root);
      const { findings } = await validateTicket({ workspace }, '.tickets/BLOG-99.ticket.json', text, new AbortController().signal);
      assert.ok(
        findings.length >= 4 && findings.every((f) => f.severity === 'error' && f.message.includes(TEMPLATE_MARK)),
        JSON.stringify(findings),
      );
      await assert.rejects(
        loadTicket({ workspace } as unknown as PipelineDeps, '.tickets/BLOG-99.ticket.json'),
        (err: Error) =>
          err instanceof UserInputError && /still holds the new ticket's placeholders .* at \$\.description/.test(err.message),
      );
    } finally {
      ws.dispose();
    }
  });
});
