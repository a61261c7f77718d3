import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../../src/core/errors';
import { heldOutCases, heldOutPath, splitHeldOut } from '../../../src/core/stages/manifest/heldOut';
import { applyProposal } from '../../../src/core/stages/proposals/correctionRequests';
import { buildManifest } from '../../../src/core/stages/manifest/manifestBuilder';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { validateTicket } from '../../../src/core/stages/authoring/validateTicket';
import type { Ticket } from '../../../src/core/schema/ticket';
import { FsWorkspace } from '../../../src/node/workspace/fsWorkspace';
import { copyFixture } from '../../support/tempWorkspace';

/** A ticket whose plan has the given cases (criterion, holdout) in one file, or in two. */
function aTicket(cases: { criterion?: string; holdout?: boolean; file?: number }[], extra: Partial<Ticket> = {}): Ticket {
  const files = [0, 1]
    .map((fi) => ({
      path: `test/ticket/T-${fi}.test.ts`,
      suite: `T ${fi}`,
      cases: cases.flatMap((c, i) =>
        (c.file ?? 0) === fi
          ? [
              {
                name: `case ${i}`,
                ...(c.criterion ? { criterion: c.criterion } : {}),
                ...(c.holdout === undefined ? {} : { holdout: c.holdout }),
                expect: [{ kind: 'truthy', actual: 'true' }],
              },
            ]
          : [],
      ),
    }))
    .filter((f) => f.cases.length > 0);
  return parseTicket(
    'T.ticket.json',
    JSON.stringify({
      id: 'T',
      title: 't',
      description: 'd',
      scope: { write: ['src/x.ts'] },
      acceptance: [
        { id: 'AC1', text: 'one' },
        { id: 'AC2', text: 'two' },
      ],
      testPlan: { files },
      ...extra,
    }),
  );
}

const names = (t: Ticket) => heldOutCases(t).map((c) => c.name);

describe('held-out cases (generalize)', () => {
  it('holds out the last case of each criterion with two or more cases, by default', () => {
    const t = aTicket([{ criterion: 'AC1' }, { criterion: 'AC2' }, { criterion: 'AC1' }, { criterion: 'AC1' }, {}]);
    assert.deepEqual(names(t), ['[AC1] case 3']);
    assert.deepEqual(heldOutCases(t)[0], {
      path: '$.testPlan.files[0].cases[3]',
      file: 'test/ticket/T-0.heldout.test.ts',
      name: '[AC1] case 3',
      criterion: 'AC1',
      why: 'last of its criterion',
    });
  });

  it('takes the last case in plan order, across files', () => {
    const t = aTicket([
      { criterion: 'AC1', file: 1 },
      { criterion: 'AC1', file: 0 },
      { criterion: 'AC2', file: 0 },
    ]);
    // File 0 comes first in the plan, so the case of file 1 is the criterion's last.
    assert.deepEqual(names(t), ['[AC1] case 0']);
    assert.equal(heldOutCases(t)[0]!.file, 'test/ticket/T-1.heldout.test.ts');
  });

  it('lets a case choose for itself, either way', () => {
    const t = aTicket([{ criterion: 'AC1', holdout: true }, { criterion: 'AC1', holdout: false }, { criterion: 'AC2' }, { holdout: true }]);
    assert.deepEqual(
      heldOutCases(t).map((c) => [c.name, c.why]),
      [
        ['[AC1] case 0', 'holdout'],
        ['case 3', 'holdout'],
      ],
    );
  });

  it('holds nothing out when the ticket turns generalize off', () => {
    const t = aTicket([{ criterion: 'AC1' }, { criterion: 'AC1', holdout: true }], { generalize: false });
    assert.deepEqual(names(t), []);
    const { visible, heldOut } = splitHeldOut(t);
    assert.deepEqual(heldOut, { generalize: false, files: [] });
    assert.equal(visible.files[0]!.cases.length, 2);
  });

  it('splits the plan: the visible file keeps the rest, the held-out file sits beside it with the same imports', () => {
    const t = aTicket([{ criterion: 'AC1' }, { criterion: 'AC1' }, { criterion: 'AC2', file: 1 }, { criterion: 'AC2', file: 1 }]);
    const { visible, heldOut } = splitHeldOut(t);
    assert.deepEqual(
      visible.files.map((f) => [f.path, f.cases.map((c) => c.name)]),
      [
        ['test/ticket/T-0.test.ts', ['case 0']],
        ['test/ticket/T-1.test.ts', ['case 2']],
      ],
    );
    assert.deepEqual(
      heldOut.files.map((f) => [f.path, f.suite, f.cases.map((c) => c.name)]),
      [
        ['test/ticket/T-0.heldout.test.ts', 'T 0', ['case 1']],
        ['test/ticket/T-1.heldout.test.ts', 'T 1', ['case 3']],
      ],
    );
  });

  it('drops a visible file whose every case is held out, and refuses a plan with nothing visible', () => {
    const t = aTicket([{ criterion: 'AC1' }, { criterion: 'AC1', file: 1 }]);
    assert.deepEqual(
      splitHeldOut(t).visible.files.map((f) => f.path),
      ['test/ticket/T-0.test.ts'],
    );
    const none = aTicket([{ criterion: 'AC1', holdout: true }]);
    assert.throws(
      () => splitHeldOut(none),
      (e: unknown) => e instanceof UserInputError && /every case of the test plan is held out/.test(e.message),
    );
  });

  it('names a held-out file like a test, beside its visible one', () => {
    assert.equal(heldOutPath('test/ticket/BLOG-1.test.ts'), 'test/ticket/BLOG-1.heldout.test.ts');
    assert.equal(heldOutPath('src/__tests__/cart.spec.mjs'), 'src/__tests__/cart.heldout.spec.mjs');
    assert.equal(heldOutPath('tests/slug.ts'), 'tests/slug.heldout.ts');
    assert.equal(heldOutPath('x.test.ts'), 'x.heldout.test.ts');
  });

  it('an accepted corrected plan, made from the visible plan, keeps the held-out cases, still held out', () => {
    const t = aTicket([{ criterion: 'AC1' }, { criterion: 'AC1' }, { criterion: 'AC2', file: 1 }, { criterion: 'AC2', file: 1 }]);
    const { visible } = splitHeldOut(t);
    // The reviewer adds an AC1 case to the plan it was shown.
    const added = {
      name: 'case 9',
      criterion: 'AC1',
      async: false,
      arrange: [],
      expect: [{ kind: 'truthy' as const, actual: 'true', not: false }],
    };
    const proposal = {
      kind: 'testPlan' as const,
      testPlan: { ...visible, files: [{ ...visible.files[0]!, cases: [...visible.files[0]!.cases, added] }, visible.files[1]!] },
    };
    const after = parseTicket('T.ticket.json', applyProposal(JSON.stringify(t), 'T.ticket.json', proposal));
    assert.deepEqual(
      after.testPlan.files.map((f) => f.cases.map((c) => [c.name, c.holdout ?? null])),
      [
        [
          ['case 0', null],
          ['case 9', null],
          ['case 1', true],
        ],
        [
          ['case 2', null],
          ['case 3', true],
        ],
      ],
    );
    assert.deepEqual(names(after), ['[AC1] case 1', '[AC2] case 3']);
  });

  describe('in the manifest and validate', function () {
    this.timeout(30_000);
    let ws: ReturnType<typeof copyFixture>;
    before(() => {
      ws = copyFixture();
    });
    after(() => ws.dispose());
    const blog1 = () => parseTicket('BLOG-1', readFileSync(path.join(ws.root, '.tickets', 'BLOG-1.ticket.json'), 'utf8'));
    /** BLOG-1 with a second case for AC1: that case is held out. */
    const withSecond = (): Ticket => {
      const t = blog1();
      const file = t.testPlan.files[0]!;
      const second = { ...file.cases[0]!, name: 'rejects perPage of 101' };
      return { ...t, testPlan: { ...t.testPlan, files: [{ ...file, cases: [...file.cases, second] }] } };
    };

    it("gives the Coder's test files the visible plan only, and the held-out files apart", async () => {
      const m = await buildManifest({ ticket: withSecond(), ticketPath: 'x', workspace: new FsWorkspace(ws.root) });
      assert.deepEqual(m.testFiles, ['test/ticket/BLOG-1.test.ts']);
      assert.ok(!m.testPlan.files.flatMap((f) => f.cases).some((c) => c.name === 'rejects perPage of 101'));
      assert.deepEqual(
        m.heldOut.files.map((f) => [f.path, f.cases.map((c) => c.name)]),
        [['test/ticket/BLOG-1.heldout.test.ts', ['rejects perPage of 101']]],
      );
      assert.equal(m.heldOut.generalize, true);
    });

    it('refuses a held-out file in scope', async () => {
      const t = withSecond();
      const workspace = new FsWorkspace(ws.root);
      await assert.rejects(
        buildManifest({
          ticket: { ...t, scope: { ...t.scope, write: [...t.scope.write, 'test/ticket/BLOG-1.heldout.test.ts'] } },
          ticketPath: 'x',
          workspace,
        }),
        /held-out test file, which the Coder never sees/,
      );
      await assert.rejects(
        buildManifest({
          ticket: { ...t, scope: { ...t.scope, read: ['test/ticket/BLOG-1.heldout.test.ts'] } },
          ticketPath: 'x',
          workspace,
        }),
        /scope\.read\[0\] .* held-out test file/,
      );
    });

    it('validate names each held-out case and renders its file apart', async () => {
      const t = withSecond();
      const text = JSON.stringify(t);
      const v = await validateTicket(
        { workspace: new FsWorkspace(ws.root) },
        '.tickets/BLOG-1.ticket.json',
        text,
        new AbortController().signal,
      );
      assert.deepEqual(
        v.heldOut.map((c) => [c.path, c.name]),
        [['$.testPlan.files[0].cases[2]', '[AC1] rejects perPage of 101']],
      );
      assert.deepEqual(
        v.rendered.map((f) => f.path),
        ['test/ticket/BLOG-1.test.ts'],
      );
      assert.ok(!v.rendered[0]!.content.includes('rejects perPage of 101'));
      assert.deepEqual(
        v.renderedHeldOut.map((f) => f.path),
        ['test/ticket/BLOG-1.heldout.test.ts'],
      );
      assert.match(v.renderedHeldOut[0]!.content, /\[AC1\] rejects perPage of 101/);
      assert.match(v.renderedHeldOut[0]!.content, /from '\.\.\/\.\.\/src\/handlers\/posts'/);
    });
  });
});
