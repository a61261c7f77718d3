// The demo: copies each fixture project to a temporary folder, once per ticket, and runs its
// tickets with the SCRIPTED model (recorded answers; no API key), through the real CLI, the real
// TypeScript language service, the project's own test runner and ESLint, then the end-of-ticket
// gates. Operator decisions are made with `ticket-runner resolve`, as a user would. The summary
// is read back from the logs.
//
//   npm run demo                       every fixture
//   npm run demo -- --fixture shop-esm one of them
//   npm run demo -- --jobs 4           four tickets at a time (default: one more than the CPUs)
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { linkSharedPackages, linkWorkspacePackages } from './fixtureLinks.cjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

/**
 * The fixture projects, one line each: the folder under test/fixtures, the flags its runs take,
 * what the operator decides for each ticket that ends with a correction request (one decision,
 * or a list of them when the resumed run asks again), and the tickets meant to end failed. The
 * tickets are every `.tickets/<ID>.ticket.json` of the fixture; each not in `fails` must pass.
 */
const FIXTURES = [
  {
    name: 'blog-api',
    flags: [],
    fails: ['BLOG-3', 'BLOG-7', 'BLOG-8'],
    decisions: {
      'BLOG-2': ['accept'],
      'BLOG-3': ['reject', '--reason', 'demo: the publish date is out of scope for now; keep the request on record'],
      'BLOG-4': ['accept'],
      'BLOG-9': ['accept'],
      'BLOG-11': ['accept'],
    },
  },
  {
    name: 'shop-esm',
    flags: ['--build-command', 'npm run build'],
    decisions: {
      // The scope addition, then the case for the renamed call the coverage gate finds no test runs.
      'SHOP-6': [['accept'], ['accept']],
      'SHOP-7': ['accept'],
      'SHOP-8': ['accept'],
    },
  },
  {
    name: 'inventory-jest',
    flags: [],
    fails: ['INV-3'],
    decisions: { 'INV-3': ['reject', '--reason', 'demo: the uncovered branches are tested in a later ticket'] },
  },
  // MONO-3 is MONO-2's change judged with no language service at all, which only the test suite sets up.
  { name: 'mono-ws', flags: [], decisions: { 'MONO-2': ['accept'] }, skip: ['MONO-3'] },
];

const say = (s) => process.stderr.write(s + '\n');
const USAGE = `Usage: npm run demo [-- --fixture ${FIXTURES.map((f) => f.name).join('|')}] [--jobs N]`;
let options;
try {
  options = parseArgs({ options: { fixture: { type: 'string' }, jobs: { type: 'string' }, help: { type: 'boolean' } } }).values;
} catch (e) {
  say(`demo: ${e.message}. ${USAGE}`);
  process.exit(3);
}
if (options.help) {
  say(USAGE);
  process.exit(0);
}
// A ticket's run waits on its tools (tests, tsc, the sandbox) most of the time: one more job
// than there are CPUs keeps them busy.
const jobs = options.jobs === undefined ? availableParallelism() + 1 : Number(options.jobs);
if (!Number.isInteger(jobs) || jobs < 1) {
  say(`demo: --jobs takes a whole number from 1, got "${options.jobs}". ${USAGE}`);
  process.exit(3);
}
const chosen = options.fixture === undefined ? FIXTURES : FIXTURES.filter((f) => f.name === options.fixture);
if (!chosen.length) {
  say(`demo: no fixture "${options.fixture}"; the fixtures are ${FIXTURES.map((f) => f.name).join(', ')}`);
  process.exit(3);
}

const base = mkdtempSync(join(tmpdir(), 'ticket-runner-demo-'));

/** The fixture's ticket ids, in number order (BLOG-2 before BLOG-10). */
function ticketsOf(fixture) {
  const ids = readdirSync(join(root, 'test', 'fixtures', fixture, '.tickets'))
    .map((f) => /^(.+)\.ticket\.json$/.exec(f)?.[1])
    .filter(Boolean);
  return ids.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/**
 * Each ticket gets its own copy of the fixture, so each failure shape shows on its own. The copy
 * gets a node_modules of its own whose packages link to this package's (the fixtures'
 * devDependencies are its own).
 */
function workspaceFor(fixture, id) {
  const ws = join(base, id, fixture);
  cpSync(join(root, 'test', 'fixtures', fixture), ws, { recursive: true, filter: (src) => !src.includes('node_modules') });
  linkSharedPackages(ws, join(root, 'node_modules'));
  linkWorkspacePackages(ws);
  return ws;
}

/**
 * Runs `ticket-runner <args>`. Its progress goes to `progress`: straight to stderr when tickets
 * run one at a time, into the ticket's block otherwise, so parallel runs do not interleave.
 */
function tr(ws, args, { json = false, progress = (s) => process.stderr.write(s) } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args, '--workspace', ws, ...(json ? ['--json'] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // The copies of one fixture are one project: the first run to measure it keeps the measure for the others, as a batch's trees do.
      env: { ...process.env, TICKET_RUNNER_KEPT_BASELINES: join(base, `${basename(ws)}.baselines`) },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => progress(String(d)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 3 || code === null) {
        progress(out);
        reject(new Error(`ticket-runner ${args.join(' ')} failed (exit ${code})`));
      } else resolve({ code, out: json ? JSON.parse(out) : out });
    });
  });
}

say(`Ticket Runner demo: ${chosen.map((f) => f.name).join(', ')}, one copy per ticket, ${jobs} at a time, in ${base}`);
say('Model: SCRIPTED (recorded answers, a test and demo tool; no API key needed)\n');
const started = Date.now();
const listed = chosen.flatMap((f) =>
  ticketsOf(f.name)
    .filter((id) => !f.skip?.includes(id))
    .map((id) => ({ f, id })),
);
// Tickets the operator decides on first: each runs twice (the run, then its resume), and one of
// them started last would finish alone while the other cores wait. The summary keeps the list's order.
const resumes = ({ f, id }) => (f.decisions[id] ? 1 : 0);
const queue = listed.map((t, at) => ({ ...t, at })).sort((a, b) => resumes(b) - resumes(a) || a.at - b.at);

async function runOne({ f, id }) {
  let block = '';
  const progress = jobs === 1 ? undefined : (s) => (block += s);
  const note = (s) => (progress ? progress(s + '\n') : say(s));
  note(`== ${f.name} ${id}`);
  try {
    const ws = workspaceFor(f.name, id);
    const run = await tr(ws, ['run', `.tickets/${id}.ticket.json`, '--model', 'scripted', ...f.flags], { json: true, progress });
    const { runId } = run.out;
    const given = f.decisions[id] ?? [];
    let code = run.code;
    for (const decision of Array.isArray(given[0]) ? given : [given]) {
      if (code !== 2 || !decision.length) break;
      note(`   operator: ${decision[0]}`);
      code = (await tr(ws, ['resolve', runId, ...decision, '--model', 'scripted', ...f.flags], { json: true, progress })).code;
    }
    note('');
    // The summary is a view of the logs, like every other view; read here, beside the other tickets' runs.
    const summary = (await tr(ws, ['show', runId], { json: true, progress })).out;
    return { fixture: f.name, ws, runId, s: summary };
  } finally {
    if (progress) process.stderr.write(block);
  }
}

// A small pool: each worker takes the next ticket; the summary keeps the list's order.
const rows = new Array(queue.length);
let next = 0;
try {
  await Promise.all(
    Array.from({ length: Math.min(jobs, queue.length) }, async () => {
      while (next < queue.length) {
        const t = queue[next++];
        rows[t.at] = await runOne(t);
      }
    }),
  );
} catch (e) {
  say(`demo: ${e.message}; see its output above`);
  process.exit(1);
}

const COLUMNS = [
  ['fixture', Math.max(...FIXTURES.map((f) => f.name.length)) + 2],
  ['ticket', 9],
  ['outcome', 14],
  ['attempts', 10],
  ['coder', 7],
  ['debugger', 10],
  ['fixes', 7],
  ['routes', 12],
  ['gates', 29],
  ['repairs', 33],
  ['corrections', 0],
];
const line = (cells) =>
  cells
    .map((c, i) => String(c).padEnd(COLUMNS[i][1]))
    .join('')
    .trimEnd();
const lines = [line(COLUMNS.map(([name]) => name))];
for (const { fixture, s } of rows) {
  const calls = (role) => s.modelCalls.filter((c) => c.role === role).length;
  const routes =
    s.attempts
      .map((a) => a.route?.route)
      .filter(Boolean)
      .join(' → ') || '-';
  const fixes = s.attempts.reduce((n, a) => n + (a.autofix?.applied.length ?? 0), 0);
  const corr = s.corrections.map((c) => `${c.request.target}:${c.status}`).join(', ') || '-';
  // A gate's verdict is its last run; skipped gates are left out.
  const verdicts = new Map(s.gates.filter((g) => g.status !== 'skipped').map((g) => [g.gate, g.status]));
  const notPassed = [...verdicts].filter(([, v]) => v !== 'passed').map(([g, v]) => `${g} ${v}`);
  const gates = verdicts.size ? (notPassed.length ? notPassed.join(', ') : `${verdicts.size} passed`) : '-';
  const repairs = s.repairs.map((r) => `${r.gate}:${r.ok ? 'ok' : (r.stage ?? 'failed')}`).join(', ') || '-';
  lines.push(
    line([fixture, s.ticketId, s.status, s.attempts.length, calls('coder'), calls('debugger'), fixes, routes, gates, repairs, corr]),
  );
}
const first = rows[0];
process.stdout.write(
  `\nSummary (from the run logs; model: SCRIPTED replay)\n${lines.join('\n')}\n\n` +
    `${rows.length} tickets in ${Math.round((Date.now() - started) / 1000)} s\n` +
    `Workspaces and logs: ${base}/<ticket>/<fixture>/.ticket-runner/runs\n` +
    `Inspect one: node ${cli} show ${first.runId} --workspace ${first.ws}\n`,
);
// Each ticket ends as its script intends: failed where the fixture says so, passed everywhere else.
const meant = (fixture, id) => ((FIXTURES.find((f) => f.name === fixture)?.fails ?? []).includes(id) ? 'failed' : 'passed');
const unexpected = rows.filter(({ fixture, s }) => s.status !== meant(fixture, s.ticketId));
if (unexpected.length) {
  process.stderr.write(
    `demo: ${unexpected.map(({ fixture, s }) => `${s.ticketId} ended ${s.status}, meant to end ${meant(fixture, s.ticketId)}`).join('; ')}; see the logs above\n`,
  );
  process.exitCode = 1;
}
