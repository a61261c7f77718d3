// The demo: copies each fixture project to a temporary folder, once per ticket, and runs its
// tickets with the SCRIPTED model (recorded answers; no API key), through the real CLI, the real
// TypeScript language service, the project's own test runner and ESLint, then the end-of-ticket
// gates. Operator decisions are made with `ticket-runner resolve`, as a user would. The summary
// is read back from the logs.
//
//   npm run demo                       every fixture
//   npm run demo -- --fixture shop-esm one of them
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

/**
 * The fixture projects, one line each: the folder under test/fixtures, the flags its runs take,
 * and what the operator decides for each ticket that ends with a correction request. The
 * tickets are every `.tickets/<ID>.ticket.json` of the fixture.
 */
const FIXTURES = [
  { name: 'blog-api', flags: [], decisions: { 'BLOG-2': ['accept'], 'BLOG-3': ['reject', '--reason', 'demo: the publish date is out of scope for now; keep the request on record'], 'BLOG-4': ['accept'], 'BLOG-9': ['accept'], 'BLOG-11': ['accept'] } },
  { name: 'shop-esm', flags: ['--build-command', 'npm run build'], decisions: { 'SHOP-6': ['accept'], 'SHOP-8': ['accept'] } },
];

const say = (s) => process.stderr.write(s + '\n');
let options;
try {
  options = parseArgs({ options: { fixture: { type: 'string' }, help: { type: 'boolean' } } }).values;
} catch (e) {
  say(`demo: ${e.message}. Usage: npm run demo [-- --fixture ${FIXTURES.map((f) => f.name).join('|')}]`);
  process.exit(3);
}
if (options.help) {
  say(`Usage: npm run demo [-- --fixture ${FIXTURES.map((f) => f.name).join('|')}]`);
  process.exit(0);
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
 * devDependencies are its own): vite writes its bundled config and cache there, and the sandbox
 * lets a run write only inside the workspace.
 */
function workspaceFor(fixture, id) {
  const ws = join(base, id, fixture);
  cpSync(join(root, 'test', 'fixtures', fixture), ws, { recursive: true, filter: (src) => !src.includes('node_modules') });
  const own = join(ws, 'node_modules');
  mkdirSync(own);
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === '.vite' || name === '.vite-temp' || name === '.cache') continue;
    symlinkSync(join(root, 'node_modules', name), join(own, name));
  }
  return ws;
}

function tr(ws, args, { json = false } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args, '--workspace', ws, ...(json ? ['--json'] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status === 3 || r.error) {
    process.stderr.write(r.stdout ?? '');
    throw new Error(`ticket-runner ${args.join(' ')} failed (exit ${r.status})`);
  }
  return { code: r.status, out: json ? JSON.parse(r.stdout) : r.stdout };
}

say(`Ticket Runner demo: ${chosen.map((f) => f.name).join(', ')}, one copy per ticket, in ${base}`);
say('Model: SCRIPTED (recorded answers, a test and demo tool; no API key needed)\n');
const started = Date.now();
const runs = [];
for (const f of chosen) {
  for (const id of ticketsOf(f.name)) {
    say(`== ${f.name} ${id}`);
    const ws = workspaceFor(f.name, id);
    const run = tr(ws, ['run', `.tickets/${id}.ticket.json`, '--model', 'scripted', ...f.flags], { json: true });
    const { runId } = run.out;
    const decision = f.decisions[id];
    if (run.code === 2 && decision) {
      say(`   operator: ${decision[0]}`);
      tr(ws, ['resolve', runId, ...decision, '--model', 'scripted', ...f.flags], { json: true });
    }
    runs.push({ fixture: f.name, ws, runId });
    say('');
  }
}

// The summary is a view of the logs, like every other view.
const rows = runs.map((r) => ({ ...r, s: tr(r.ws, ['show', r.runId], { json: true }).out }));
const COLUMNS = [
  ['fixture', 10],
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
const line = (cells) => cells.map((c, i) => String(c).padEnd(COLUMNS[i][1])).join('').trimEnd();
const lines = [line(COLUMNS.map(([name]) => name))];
for (const { fixture, s } of rows) {
  const calls = (role) => s.modelCalls.filter((c) => c.role === role).length;
  const routes = s.attempts.map((a) => a.route?.route).filter(Boolean).join(' → ') || '-';
  const fixes = s.attempts.reduce((n, a) => n + (a.autofix?.applied.length ?? 0), 0);
  const corr = s.corrections.map((c) => `${c.request.target}:${c.status}`).join(', ') || '-';
  // A gate's verdict is its last run; skipped gates are left out.
  const verdicts = new Map(s.gates.filter((g) => g.status !== 'skipped').map((g) => [g.gate, g.status]));
  const notPassed = [...verdicts].filter(([, v]) => v !== 'passed').map(([g, v]) => `${g} ${v}`);
  const gates = verdicts.size ? (notPassed.length ? notPassed.join(', ') : `${verdicts.size} passed`) : '-';
  const repairs = s.repairs.map((r) => `${r.gate}:${r.ok ? 'ok' : r.stage ?? 'failed'}`).join(', ') || '-';
  lines.push(line([fixture, s.ticketId, s.status, s.attempts.length, calls('coder'), calls('debugger'), fixes, routes, gates, repairs, corr]));
}
const first = runs[0];
process.stdout.write(
  `\nSummary (from the run logs; model: SCRIPTED replay)\n${lines.join('\n')}\n\n` +
    `${rows.length} tickets in ${Math.round((Date.now() - started) / 1000)} s\n` +
    `Workspaces and logs: ${base}/<ticket>/<fixture>/.ticket-runner/runs\n` +
    `Inspect one: node ${cli} show ${first.runId} --workspace ${first.ws}\n`,
);
const unexpected = rows.filter(({ s }) => s.status === 'error' || s.status === 'running');
if (unexpected.length) {
  process.stderr.write(`demo: ${unexpected.map(({ s }) => s.ticketId).join(', ')} ended in error; see the logs above\n`);
  process.exitCode = 1;
}
