import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TicketValidationError, UserInputError } from '../../../src/core/errors';
import { applyProposal, previewProposal } from '../../../src/core/stages/proposals/correctionRequests';
import { isTicketFileName, readTicketData, ticketBaseName, writeTicketData } from '../../../src/core/ticket/ticketFormat';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { newTicketText, placeholderPaths } from '../../../src/core/ticket/ticketTemplate';
import { findingRange } from '../../../src/node/tickets/findingRanges';
import { FIXTURE } from '../../support/tempWorkspace';
import { BLOG1_YAML } from '../../support/yamlTickets';

const FILE = '.tickets/X-1.ticket.yaml';

/** The one line a bad YAML ticket gets, or a failure if it parses. */
function refusal(text: string): string {
  try {
    parseTicket(FILE, text);
  } catch (err) {
    assert.ok(err instanceof TicketValidationError, `a TicketValidationError, not ${String(err)}`);
    assert.ok(!err.message.includes('\n'), `one line: ${err.message}`);
    return err.message;
  }
  assert.fail(`accepted: ${text}`);
}

describe('a ticket written as YAML', () => {
  describe('hostile and broken YAML: one line with its line and column, never a stack trace or a hang', () => {
    it('malformed YAML', () => {
      assert.match(
        refusal('id: X-1\ntitle: [unclosed\ndescription: d\n'),
        /^\.tickets\/X-1\.ticket\.yaml: invalid ticket: at \$: not valid YAML \(line \d+, column \d+\): /,
      );
      assert.match(
        refusal('id: X-1\n  title: bad indent\n'),
        /not valid YAML \(line 1, column 5\): Nested mappings are not allowed in compact mappings/,
      );
    });

    it('a duplicate key, which JSON.parse would silently let win', () => {
      assert.match(
        refusal('id: X-1\ntitle: first\ntitle: second\n'),
        /not valid YAML \(line 3, column 1\): a key appears twice in the same mapping: keep one/,
      );
      // Nested too: a second `expected` would replace the one the author reviewed.
      assert.match(refusal('a:\n  expected: "1"\n  expected: "2"\n'), /line 3, column 3\): a key appears twice/);
    });

    it('an alias bomb (billion laughs) is refused before it is expanded, and so is any alias', () => {
      const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < 12; i++)
        levels.push(
          `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(96 + i)}`)
            .join(',')}]`,
        );
      const started = Date.now();
      const msg = refusal(levels.join('\n') + '\n');
      assert.ok(Date.now() - started < 2000, 'refused without expanding');
      assert.match(
        msg,
        /not valid YAML \(line 2, column \d+\): an alias \(\*a\) repeats another value: write the value out; anchors and aliases are not allowed in a ticket/,
      );
      assert.match(refusal('id: &i X-1\ntitle: *i\n'), /line 2, column 8\): an alias \(\*i\)/);
    });

    it('a tab used as indentation', () => {
      assert.match(
        refusal('scope:\n\twrite: [a.ts]\n'),
        /not valid YAML \(line 2, column 1\): a tab indents this line: YAML indents with spaces only/,
      );
    });

    it('a second document, and a tag that would make something else of a value', () => {
      assert.match(refusal('id: X-1\n---\nid: X-2\n'), /a ticket is one YAML document/);
      assert.match(refusal('id: !!js/function "function(){}"\n'), /not valid YAML \(line 1, column 5\)/);
    });

    it('YAML 1.1 surprises do not apply: `no` and `0755` stay what YAML 1.2 says, and the schema still checks types', () => {
      assert.deepEqual(readTicketData(FILE, 'a: no\nb: 0755\nc: 0o17\n'), { a: 'no', b: 755, c: 15 });
      assert.match(refusal(BLOG1_YAML.replace('id: BLOG-1', 'id: 12')), /at \$\.id: expected string, got number/);
    });
  });

  it('BLOG-1 as YAML, with block scalars, is the same ticket as its JSON twin', () => {
    const json = parseTicket('.tickets/BLOG-1.ticket.json', readFileSync(path.join(FIXTURE, '.tickets/BLOG-1.ticket.json'), 'utf8'));
    const yaml = parseTicket('.tickets/BLOG-1.ticket.yaml', BLOG1_YAML);
    delete json.$schema;
    assert.deepEqual(yaml, json);
  });

  it('is found by its name: .ticket.yaml and .ticket.yml, the id without the suffix', () => {
    assert.ok(isTicketFileName('BLOG-1.ticket.yaml') && isTicketFileName('BLOG-1.ticket.yml') && isTicketFileName('BLOG-1.ticket.json'));
    assert.ok(!isTicketFileName('BLOG-1.script.json') && !isTicketFileName('BLOG-1.yaml'));
    assert.equal(ticketBaseName('.tickets/BLOG-1.ticket.yaml'), 'BLOG-1');
  });

  it('New Ticket writes a YAML template with its expressions in block scalars, refused by validate until written', () => {
    const text = newTicketText({
      id: 'BLOG-99',
      title: 'Sort: posts "by" date',
      scopeFile: 'src/handlers/posts.ts',
      language: 'ts',
      esm: false,
      format: 'yaml',
    });
    assert.match(text, /^# A Ticket Runner ticket/);
    assert.match(text, /actual: \|-\n\s+'<<fill in>> an expression over the code'/);
    const ticket = parseTicket('.tickets/BLOG-99.ticket.yaml', text);
    assert.equal(ticket.title, 'Sort: posts "by" date');
    assert.deepEqual(
      ticket,
      parseTicket(
        '.tickets/BLOG-99.ticket.json',
        newTicketText({ id: 'BLOG-99', title: 'Sort: posts "by" date', scopeFile: 'src/handlers/posts.ts', language: 'ts', esm: false }),
      ),
    );
    assert.ok(placeholderPaths(readTicketData(FILE, text)).includes('$.testPlan.files[0].cases[0].expect[0].actual'));
  });

  describe('an accepted correction edits the YAML in place', () => {
    it('a ticket edit (exact text replacements) keeps the comments and block scalars it does not touch', () => {
      const before = BLOG1_YAML;
      const proposal = {
        kind: 'ticketEdit' as const,
        summary: 'use perPage 200',
        ticket: readTicketData(FILE, before.replace("perPage: '500'", "perPage: '200'")),
      };
      const after = applyProposal(before, '.tickets/BLOG-1.ticket.yaml', proposal);
      assert.equal(after, before.replace("perPage: '500'", "perPage: '200'"), 'exactly the one change');
    });

    it('a scope addition and a new test plan: the rest of the file is as it was', () => {
      const file = '.tickets/BLOG-1.ticket.yaml';
      const scoped = applyProposal(BLOG1_YAML, file, { kind: 'scopeAddition', paths: ['src/utils/pagination.ts'] });
      assert.deepEqual(parseTicket(file, scoped).scope.write, ['src/handlers/posts.ts', 'src/utils/pagination.ts']);
      assert.ok(scoped.startsWith('# BLOG-1, as YAML'), 'the comment stays');
      assert.ok(scoped.includes('description: >-\n  GET /posts'), 'the folded description stays as written');

      const plan = parseTicket(file, BLOG1_YAML).testPlan;
      plan.files[0]!.cases[0]!.expect[0] = { kind: 'equal', actual: 'res.status', expected: '422', mode: 'strict', not: false };
      const replanned = applyProposal(BLOG1_YAML, file, { kind: 'testPlan', testPlan: plan });
      assert.deepEqual(parseTicket(file, replanned).testPlan, plan);
      assert.ok(
        replanned.includes("expected: |-\n                { error: 'perPage max is 100' }"),
        'an unchanged block scalar stays a block scalar',
      );
      const preview = previewProposal(BLOG1_YAML, file, { kind: 'scopeAddition', paths: ['src/x.ts'] });
      assert.ok('diff' in preview, JSON.stringify(preview));
      assert.match(
        preview.diff,
        /^-  write: \[src\/handlers\/posts\.ts\]\n\+  write: \[src\/handlers\/posts\.ts, src\/x\.ts\]$/m,
        'the YAML itself, before and after',
      );
    });

    it('a YAML ticket that no longer parses is refused clearly, not overwritten', () => {
      assert.throws(
        () => applyProposal('id: X\n\tbroken: [\n', FILE, { kind: 'scopeAddition', paths: ['a.ts'] }),
        (err: Error) =>
          err instanceof UserInputError &&
          /^\.tickets\/X-1\.ticket\.yaml is no longer valid YAML; fix it before accepting the correction$/.test(err.message),
      );
    });

    it('what is written reads back as exactly the value asked for, with a changed string keeping its block style', () => {
      const value = readTicketData(FILE, BLOG1_YAML) as { testPlan: { files: { cases: { arrange: string[] }[] }[] } };
      value.testPlan.files[0]!.cases[1]!.arrange[0] = "const res = listPosts({ query: { perPage: '100' } });\nconst again = res;";
      const text = writeTicketData(FILE, BLOG1_YAML, value);
      assert.deepEqual(readTicketData(FILE, text), value);
      assert.match(text, /- \|-\n\s+const res = listPosts\(\{ query: \{ perPage: '100' \} \}\);\n\s+const again = res;/);
    });
  });

  it('a finding is placed at its value in the YAML text, and a syntax error at its line', () => {
    const at = (p: string) => {
      const r = findingRange(BLOG1_YAML, p, 'yaml');
      return BLOG1_YAML.slice(r.offset, r.offset + r.length);
    };
    assert.equal(at('$.scope.read[1]'), 'src/store/postStore.ts');
    assert.equal(
      at('$.testPlan.files[0].cases[1].expect[1].actual'),
      '|-\n                (res.body as { items: unknown[] }).items.length\n',
    );
    assert.equal(at('$.refs'), 'id: BLOG-1', 'a missing key: the first line of the mapping that should hold it');
    assert.equal(at('$.scope.missing'), 'write: [src/handlers/posts.ts]');
    const broken = 'id: X\ntitle: a\ntitle: b\n';
    const r = findingRange(broken, '$', 'yaml');
    assert.equal(broken.slice(r.offset, r.offset + r.length), 'title: b');
  });
});
