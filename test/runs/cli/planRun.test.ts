import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { PlanProgress } from '../../../src/core/plan/planProgress';
import { EXIT } from '../../../src/cli/exitCodes';
import { cli } from '../../support/cli';
import { copyFixtureInGit, git } from '../../support/gitFixture';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * The fixture plan TAGS (blog-api): TAGS-1, then TAGS-2 on TAGS-1's code, and TAGS-3 on its own,
 * each replayed from its recorded answers, through the CLI started outside the workspace.
 */

const PLAN = '.tickets/TAGS.plan.yaml';
type Shown = PlanProgress & { plan: string };

async function show(ws: string): Promise<Shown> {
  const r = await cli(['plan', 'show', PLAN, '--json', '--workspace', ws]);
  assert.equal(r.code, EXIT.passed, r.err);
  return JSON.parse(r.out) as Shown;
}
const states = (p: PlanProgress) => Object.fromEntries(p.tickets.map((t) => [t.id, t.state]));
const planLines = (err: string) => err.split('\n').filter((l) => l.startsWith('plan: '));
const run = (ws: string, action: 'run' | 'resume', ...more: string[]) =>
  cli(['plan', action, PLAN, '--model', 'scripted', '--workspace', ws, ...more]);

/** TAGS-1's Coder forgets to trim and to join words; the Debugger says so. */
function breakTags1(ws: string): void {
  writeFileSync(
    path.join(ws, '.tickets/answers/TAGS-1/wrong.ts'),
    'export function normalizeTag(raw: string): string {\n  return raw.toLowerCase();\n}\n',
  );
  const script = JSON.parse(readFileSync(path.join(ws, '.tickets/TAGS-1.script.json'), 'utf8')) as Record<string, unknown>;
  script['coder'] = [{ expect: { attempt: 1 }, files: { 'src/utils/tagName.ts': { from: 'answers/TAGS-1/wrong.ts' } } }];
  script['debugger'] = [
    {
      expect: { attempt: 1 },
      structured: {
        kind: 'code',
        claim: 'normalizeTag only lowers the case: it neither trims the tag nor joins its words with a dash.',
        evidence: [{ source: 'implementation', file: 'src/utils/tagName.ts', quote: 'return raw.toLowerCase();' }],
        brief: 'Trim the tag, lower its case, and replace each run of spaces with one dash.',
        avoid: ['lowering the case alone'],
      },
    },
  ];
  writeFileSync(path.join(ws, '.tickets/TAGS-1.script.json'), JSON.stringify(script, null, 2));
}

/**
 * TAGS-1 with a wrong test plan: its second case is tagged AC1, so no case checks AC2. The Test
 * Reviewer proposes the corrected plan, and the run waits for the operator.
 */
function misTagTags1(ws: string): void {
  const ticketPath = path.join(ws, '.tickets/TAGS-1.ticket.yaml');
  const right = readFileSync(ticketPath, 'utf8');
  // The mis-tagged case is the last of AC1's two, so it is held out; once corrected it is AC2's only case, held out still.
  writeFileSync(ticketPath, right.replace(/(- name: keeps a clean tag\n\s+criterion: )AC2/, '$1AC1'));
  const script = JSON.parse(readFileSync(path.join(ws, '.tickets/TAGS-1.script.json'), 'utf8')) as Record<string, unknown>;
  const cases = [
    {
      name: 'trims, lowers and joins words with one dash',
      criterion: 'AC1',
      expect: [{ kind: 'equal', actual: "normalizeTag('  Type  Script ')", expected: "'type-script'" }],
    },
    { name: 'keeps a clean tag', criterion: 'AC2', expect: [{ kind: 'equal', actual: "normalizeTag('node')", expected: "'node'" }] },
  ];
  script['testReviewer'] = [
    {
      expect: { attempt: 1, promptIncludes: ['No test case names these criteria\nAC2'] },
      structured: {
        verdict: 'fail',
        criteria: [
          { id: 'AC1', covered: true },
          { id: 'AC2', covered: false, claim: "'keeps a clean tag' checks AC2's example but is tagged AC1" },
        ],
        claim: "The case 'keeps a clean tag' checks that a clean tag is kept (AC2) but is tagged AC1: no case names AC2.",
        proposedTestPlan: {
          files: [
            {
              path: 'test/ticket/TAGS-1.test.ts',
              suite: 'TAGS-1 normalizeTag',
              imports: [{ from: '../../src/utils/tagName', names: ['normalizeTag'] }],
              cases,
            },
          ],
        },
      },
    },
    {
      expect: { attempt: 2 },
      structured: {
        verdict: 'pass',
        criteria: [
          { id: 'AC1', covered: true },
          { id: 'AC2', covered: true },
        ],
      },
    },
  ];
  writeFileSync(path.join(ws, '.tickets/TAGS-1.script.json'), JSON.stringify(script, null, 2));
}

describe('a plan of tickets, through the CLI (TAGS: TAGS-2 after TAGS-1, TAGS-3 alone)', function () {
  this.timeout(600_000);

  it('runs to the end in order, commits each ticket on the plan branch and nothing of the user, and TAGS-2 passes only on TAGS-1 code', async () => {
    const ws = copyFixtureInGit();
    try {
      // The user's own work beside the plan: an edit not committed, which no commit of the plan may take.
      writeFileSync(path.join(ws.root, 'README.md'), `${readFileSync(path.join(ws.root, 'README.md'), 'utf8')}\nMy notes.\n`);
      const from = git(ws.root, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
      const r = await run(ws.root, 'run');
      assert.equal(r.code, EXIT.passed, r.err);
      const lines = planLines(r.err);
      const committed = (id: string) => new RegExp(`^plan: ${id} is committed on plan/TAGS \\([0-9a-f]{7,}\\)$`);
      assert.deepEqual(lines.slice(0, 3), [
        'plan: TAGS-1 starts',
        `plan: the plan's tickets are committed on a new branch, plan/TAGS, made from ${from}`,
        'plan: TAGS-1 passed',
      ]);
      assert.match(lines[3]!, committed('TAGS-1'));
      assert.deepEqual(lines.slice(4, 6), ['plan: TAGS-3 starts', 'plan: TAGS-3 passed']);
      assert.match(lines[6]!, committed('TAGS-3'));
      assert.deepEqual(lines.slice(7, 9), ['plan: TAGS-2 starts on the code TAGS-1 left', 'plan: TAGS-2 passed']);
      assert.match(lines[9]!, committed('TAGS-2'));
      assert.equal(lines.length, 10, r.err);
      assert.match(r.out, /^TAGS passed: every ticket passed\n/);

      assert.equal(git(ws.root, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'plan/TAGS');
      const commits = git(ws.root, 'log', '--format=%s', '-3').trim().split('\n');
      assert.deepEqual(commits, [
        'TAGS-2: Read a comma-separated list of tags',
        "TAGS-3: An author's initials",
        'TAGS-1: Normalize a tag typed by hand',
      ]);
      assert.deepEqual(git(ws.root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort(), [
        'src/utils/tagList.ts',
        'test/ticket/TAGS-2.test.ts',
      ]);
      assert.equal(git(ws.root, 'status', '--porcelain').trim(), 'M README.md', "the user's edit is still theirs, uncommitted");

      const shown = await show(ws.root);
      assert.equal(shown.verdict, 'passed');
      assert.deepEqual(
        shown.tickets.map((t) => t.id),
        ['TAGS-1', 'TAGS-3', 'TAGS-2'],
      );
      for (const t of shown.tickets)
        assert.ok(t.run && t.run.attempts === 1 && t.run.startedAt && t.run.updatedAt, `${t.id}: ${JSON.stringify(t.run)}`);
      const one = await cli(['show', shown.tickets[2]!.run!.runId, '--workspace', ws.root]);
      assert.match(
        one.out,
        /\nPart of the plan TAGS \(\.tickets\/TAGS\.plan\.yaml\): ticket-runner plan show \.tickets\/TAGS\.plan\.yaml\n/,
      );
      const text = await cli(['plan', 'show', PLAN, '--workspace', ws.root]);
      assert.match(text.out, /\n {2}TAGS-2: passed \(1 attempt, \$0\.00, [\d.]+ s\)\n {4}after TAGS-1\n/);

      // TAGS-2's own tests pass on this code, and fail once TAGS-1's module is gone.
      const tags2 = () =>
        spawnSync(process.execPath, ['--import', 'tsx', '--test', 'test/ticket/TAGS-2.test.ts'], { cwd: ws.root, encoding: 'utf8' });
      assert.equal(tags2().status, 0, tags2().stdout);
      renameSync(path.join(ws.root, 'src/utils/tagName.ts'), path.join(ws.root, 'tagName.ts.away'));
      assert.notEqual(tags2().status, 0, 'TAGS-2 passes only on the code TAGS-1 left');
      renameSync(path.join(ws.root, 'tagName.ts.away'), path.join(ws.root, 'src/utils/tagName.ts'));

      const again = await run(ws.root, 'run');
      assert.equal(again.code, EXIT.error);
      assert.match(again.err, /TAGS already passed: .*roll back its tickets' runs first/);
    } finally {
      ws.dispose();
    }
  });

  it('a failure of TAGS-1 pauses TAGS-2 and not TAGS-3; once fixed, resume runs TAGS-1 again from the code before it and finishes', async () => {
    const ws = copyFixture();
    try {
      breakTags1(ws.root);
      const r = await run(ws.root, 'run', '--attempts', '1');
      assert.equal(r.code, EXIT.failed, r.err);
      assert.ok(planLines(r.err).includes('plan: TAGS-1 failed; TAGS-2 waits for it'), r.err);
      assert.deepEqual(states(await show(ws.root)), { 'TAGS-1': 'failed', 'TAGS-3': 'passed', 'TAGS-2': 'paused' });
      assert.match(r.out, /\n {2}TAGS-2: paused: TAGS-1 did not pass\n/);
      assert.ok(!existsSync(path.join(ws.root, 'test/ticket/TAGS-2.test.ts')), 'TAGS-2 never ran');
      assert.ok(!existsSync(path.join(ws.root, '.git')), 'outside git nothing is committed, and no repository is made');

      // The operator fixes what failed (here: the recorded answer) and resumes.
      writeFileSync(
        path.join(ws.root, '.tickets/TAGS-1.script.json'),
        readFileSync(path.join(__dirname, '../../fixtures/blog-api/.tickets/TAGS-1.script.json')),
      );
      const tags3 = (await show(ws.root)).tickets.find((t) => t.id === 'TAGS-3')!.run!.runId;
      const resumed = await run(ws.root, 'resume');
      assert.equal(resumed.code, EXIT.passed, resumed.err);
      assert.deepEqual(planLines(resumed.err).slice(0, 2), [
        "plan: TAGS-1's last run is rolled back: it runs again from the code before it",
        'plan: TAGS-1 runs again',
      ]);
      const shown = await show(ws.root);
      assert.equal(shown.verdict, 'passed');
      assert.equal(shown.tickets.find((t) => t.id === 'TAGS-3')!.run!.runId, tags3, 'TAGS-3 passed before and is not run again');
    } finally {
      ws.dispose();
    }
  });

  it('a correction of TAGS-1 pauses TAGS-2; resume waits until it is settled, then finishes and shows TAGS-2 what changed', async () => {
    const ws = copyFixture();
    try {
      misTagTags1(ws.root);
      const r = await run(ws.root, 'run');
      assert.equal(r.code, EXIT.needsOperator, r.err);
      assert.ok(planLines(r.err).includes('plan: TAGS-1 waits for you to settle a correction; TAGS-2 waits for it'), r.err);
      const waiting = await show(ws.root);
      assert.deepEqual(states(waiting), { 'TAGS-1': 'waiting', 'TAGS-3': 'passed', 'TAGS-2': 'paused' });
      const runId = waiting.tickets[0]!.run!.runId;
      assert.match(
        r.out,
        new RegExp(`Next: settle TAGS-1's correction \\(ticket-runner resolve ${runId} accept\\|reject\\), then ticket-runner plan resume`),
      );

      const early = await run(ws.root, 'resume');
      assert.equal(early.code, EXIT.needsOperator, early.err);
      assert.deepEqual(planLines(early.err), [], 'nothing runs before the correction is settled');

      const accepted = await cli(['resolve', runId, 'accept', '--model', 'scripted', '--workspace', ws.root]);
      assert.equal(accepted.code, EXIT.passed, accepted.err);
      const resumed = await run(ws.root, 'resume');
      assert.equal(resumed.code, EXIT.passed, resumed.err);
      assert.deepEqual(planLines(resumed.err).slice(0, 2), [
        'plan: TAGS-2 starts on the code TAGS-1 left (corrected since the plan was written: TAGS-1: its test plan was corrected)',
        'plan: TAGS-2 passed',
      ]);
      assert.match(resumed.out, /\n {4}TAGS-1 was corrected: its test plan was corrected\n/);
    } finally {
      ws.dispose();
    }
  });

  it('says what is wrong with a plan before anything runs', async () => {
    const ws = copyFixture();
    try {
      writeFileSync(
        path.join(ws.root, '.tickets/BAD.plan.yaml'),
        'id: BAD\ntitle: Bad\ntickets:\n  - ticket: TAGS-1\n  - ticket: TAGS-9\n    after: [TAGS-1]\n',
      );
      const missing = await cli(['plan', 'run', '.tickets/BAD.plan.yaml', '--model', 'scripted', '--workspace', ws.root]);
      assert.equal(missing.code, EXIT.error);
      assert.match(
        missing.err,
        /\.tickets\/BAD\.plan\.yaml names TAGS-9, and there is no \.tickets\/TAGS-9\.ticket\.json or \.ticket\.yaml: write it, or fix the plan/,
      );
      const checked = await cli(['validate', '.tickets/BAD.plan.yaml', PLAN, '--workspace', ws.root]);
      assert.equal(checked.code, EXIT.error);
      assert.match(checked.out, /^\.tickets\/BAD\.plan\.yaml: error at \$: \.tickets\/BAD\.plan\.yaml names TAGS-9, and there is no /);
      assert.match(checked.out, /\n\.tickets\/TAGS\.plan\.yaml: ok$/, 'a plan is checked as a plan, not as a ticket');
      const early = await run(ws.root, 'resume');
      assert.equal(early.code, EXIT.error);
      assert.match(
        early.err,
        /TAGS has not run yet, so there is nothing to resume: ticket-runner plan run \.tickets\/TAGS\.plan\.yaml starts it/,
      );
      const none = await cli(['plan', 'go', PLAN, '--workspace', ws.root]);
      assert.match(none.err, /plan takes one of run, resume, show, draft/);
      assert.ok(
        !existsSync(path.join(ws.root, '.ticket-runner', 'runs')) || !existsSync(path.join(ws.root, 'test/ticket/TAGS-1.test.ts')),
        'nothing ran',
      );
      assert.equal((await show(ws.root)).verdict, 'notStarted');
    } finally {
      ws.dispose();
    }
  });
});
