import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Ticket } from '../../../src/core/schema/ticket';
import { ticketText } from '../../../src/core/ticket/ticketTemplate';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { HELD_OUT_LENS, heldOutLenses } from '../../../src/lsp/heldOutView';
import { hover } from '../../../src/lsp/hover';
import { ticketSource } from '../../../src/lsp/ticketFormats';
import { copyFixture } from '../../support/tempWorkspace';

/** The names of BLOG-14's three cases: AC1's only one, then AC2's two (the last is held out). */
const BARE = 'splits a bare path';
const HTTPS = 'takes the path of an https URL';
const OTHER = 'takes the path of another URL, without its query or fragment';

/**
 * The ticket language server on which cases the Coder never sees: the hover on a case and the
 * lens above a held-out one, called as the server calls them, over a copy of blog-api.
 */
describe('the ticket language server names the held-out cases (hover, code lens)', () => {
  let ws: ReturnType<typeof copyFixture>;
  let workspace: FsWorkspace;
  before(() => {
    ws = copyFixture();
    workspace = new FsWorkspace(ws.root);
  });
  after(() => ws.dispose());

  /** BLOG-14 with changes, in a format. */
  function ticket(format: 'json' | 'yaml', change: (t: Ticket) => void = () => undefined): { file: string; text: string } {
    const t = JSON.parse(readFileSync(path.join(ws.root, '.tickets/BLOG-14.ticket.json'), 'utf8')) as Ticket & { $schema?: string };
    delete t.$schema;
    change(t);
    return { file: `.tickets/BLOG-14.ticket.${format}`, text: ticketText(t, format) };
  }

  /** The hover's markdown on a case's name. */
  async function hoverOn(t: { file: string; text: string }, name: string): Promise<string> {
    const doc = TextDocument.create(`file:///w/${t.file}`, 'json', 1, t.text);
    const at = t.text.indexOf(name);
    assert.ok(at >= 0, `${name} in ${t.text}`);
    const h = await hover(doc, ticketSource(t.file, t.text)!, { checks: { workspace } }, t.file, at + 2, new AbortController().signal);
    return (h?.contents as { value: string } | undefined)?.value ?? '';
  }

  /** The first line of a hover: where the case stands. */
  const standing = (value: string) => value.split('\n')[0];

  for (const format of ['json', 'yaml'] as const) {
    it(`a held-out case says so and why, and shows the held-out file it is rendered into, not the visible one (${format})`, async () => {
      const value = await hoverOn(ticket(format), OTHER);
      assert.equal(
        standing(value),
        '**Held out:** the last case of criterion AC2 — the Coder never sees it; it judges an attempt once the visible cases pass.',
      );
      assert.match(value, /The test a run renders at `test\/ticket\/BLOG-14\.heldout\.test\.ts`/);
      assert.match(value, /localhost:3000/);
      assert.doesNotMatch(value, /splits a bare path/, 'the visible cases are not in the held-out file');
    });

    it(`a visible case says the Coder sees it and why: not its criterion's last, or its criterion's only case (${format})`, async () => {
      const t = ticket(format);
      const https = await hoverOn(t, HTTPS);
      assert.equal(
        standing(https),
        '**Visible:** the Coder sees it, and every attempt is judged by it. It is not the last case of criterion AC2: only the last is held out.',
      );
      assert.match(https, /The test a run renders at `test\/ticket\/BLOG-14\.test\.ts`/);
      assert.doesNotMatch(https, /localhost:3000/, 'the visible file has no held-out case');
      assert.equal(
        standing(await hoverOn(t, BARE)),
        "**Visible:** the Coder sees it, and every attempt is judged by it. It is the only case of criterion AC1: a criterion's last case is held out only when it has two or more.",
      );
    });
  }

  it('a case that says holdout: true is held out, one that says holdout: false stays visible', async () => {
    const t = ticket('json', (x) => {
      const cases = x.testPlan.files[0]!.cases;
      cases[0]!.holdout = true;
      cases[2]!.holdout = false;
    });
    assert.equal(
      standing(await hoverOn(t, BARE)),
      '**Held out:** it says `holdout: true` — the Coder never sees it; it judges an attempt once the visible cases pass.',
    );
    assert.equal(
      standing(await hoverOn(t, OTHER)),
      '**Visible:** it says `holdout: false` — the Coder sees it, and every attempt is judged by it.',
    );
  });

  it('with generalize: false every case is visible and the hover says nothing is held out; no lens', async () => {
    const t = ticket('yaml', (x) => {
      x.generalize = false;
    });
    const words = '**Visible:** the ticket says `generalize: false`, so nothing is held out — the Coder sees every case.';
    for (const name of [BARE, HTTPS, OTHER]) assert.equal(standing(await hoverOn(t, name)), words);
    assert.deepEqual(heldOutLenses(TextDocument.create('file:///w/t', 'yaml', 1, t.text), ticketSource(t.file, t.text)!, t.file), []);
  });

  for (const format of ['json', 'yaml'] as const) {
    it(`puts one lens above the held-out case, on its line, and none while the ticket does not parse (${format})`, () => {
      const t = ticket(format);
      const doc = TextDocument.create(`file:///w/${t.file}`, format, 1, t.text);
      const lenses = heldOutLenses(doc, ticketSource(t.file, t.text)!, t.file);
      assert.deepEqual(
        lenses.map((l) => l.command?.title),
        [HELD_OUT_LENS],
      );
      const line = doc.getText({
        start: { line: lenses[0]!.range.start.line, character: 0 },
        end: { line: lenses[0]!.range.start.line + 1, character: 0 },
      });
      const next = doc.getText({
        start: { line: lenses[0]!.range.start.line, character: 0 },
        end: { line: lenses[0]!.range.start.line + 2, character: 0 },
      });
      assert.match(format === 'json' ? next : line, new RegExp(OTHER), `the lens's line: ${line}`);

      const broken = t.text.replace(
        format === 'json' ? '"criterion": "AC1"' : 'criterion: AC1',
        format === 'json' ? '"criterion": 1' : 'criterion: [1]',
      );
      assert.notEqual(broken, t.text);
      assert.deepEqual(
        heldOutLenses(TextDocument.create(`file:///w/${t.file}`, format, 2, broken), ticketSource(t.file, broken)!, t.file),
        [],
      );
    });
  }
});
