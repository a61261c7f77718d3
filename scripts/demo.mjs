// The demo: copies the blog-api fixture to a temporary folder and runs its tickets with
// the SCRIPTED model (recorded answers; no API key), through the real CLI, the real
// TypeScript language service and the real test runner, then the end-of-ticket gates (the
// workspace's tsc, V8 coverage, the scripted reviewers). Operator decisions are made
// with `ticket-runner resolve`, as a user would. The summary is read back from the logs.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');
const base = mkdtempSync(join(tmpdir(), 'ticket-runner-demo-'));

/** Each ticket gets its own copy of the fixture, so each failure shape shows on its own. */
function workspaceFor(id) {
  const ws = join(base, id, 'blog-api');
  cpSync(join(root, 'test', 'fixtures', 'blog-api'), ws, { recursive: true, filter: (src) => !src.includes('node_modules') });
  // The fixture's devDependencies (typescript, tsx, @types/node) come from this package's own.
  symlinkSync(join(root, 'node_modules'), join(ws, 'node_modules'), 'dir');
  return ws;
}

const say = (s) => process.stderr.write(s + '\n');
function tr(ws, args, { json = false } = {}) {
  const r = spawnSync(process.execPath, [cli, ...args, '--workspace', ws, ...(json ? ['--json'] : [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status === 3 || r.error) {
    process.stderr.write(r.stdout ?? '');
    throw new Error(`ticket-runner ${args.join(' ')} failed (exit ${r.status})`);
  }
  return { code: r.status, out: json ? JSON.parse(r.stdout) : r.stdout };
}

/** What the operator decides for each ticket that ends with a correction request. */
const decisions = {
  'BLOG-2': ['accept'],
  'BLOG-3': ['reject', '--reason', 'demo: the publish date is out of scope for now; keep the request on record'],
  'BLOG-4': ['accept'],
  'BLOG-9': ['accept'],
  'BLOG-11': ['accept'],
};

say(`Ticket Runner demo: the blog-api fixture, one copy per ticket, in ${base}`);
say('Model: SCRIPTED (recorded answers, a test and demo tool; no API key needed)\n');
const runs = [];
for (const id of ['BLOG-1', 'BLOG-2', 'BLOG-3', 'BLOG-4', 'BLOG-5', 'BLOG-6', 'BLOG-7', 'BLOG-8', 'BLOG-9', 'BLOG-10', 'BLOG-11']) {
  say(`== ${id}`);
  const ws = workspaceFor(id);
  const run = tr(ws, ['run', `.tickets/${id}.ticket.json`, '--model', 'scripted'], { json: true });
  let { runId } = run.out;
  if (run.code === 2 && decisions[id]) {
    say(`   operator: ${decisions[id][0]}`);
    tr(ws, ['resolve', runId, ...decisions[id], '--model', 'scripted'], { json: true });
  }
  runs.push({ ws, runId });
  say('');
}

// The summary is a view of the logs, like every other view.
const rows = runs.map(({ ws, runId }) => tr(ws, ['show', runId], { json: true }).out);
const pad = (s, n) => String(s).padEnd(n);
const lines = [
  `${pad('ticket', 8)}${pad('outcome', 14)}${pad('attempts', 10)}${pad('coder', 7)}${pad('debugger', 10)}${pad('fixes', 7)}${pad('routes', 12)}${pad('gates', 29)}${pad('repairs', 33)}corrections`,
];
for (const s of rows) {
  const calls = (role) => s.modelCalls.filter((c) => c.role === role).length;
  const routes = s.attempts.map((a) => a.route?.route).filter(Boolean).join(' → ') || '-';
  const fixes = s.attempts.reduce((n, a) => n + (a.autofix?.applied.length ?? 0), 0);
  const corr = s.corrections.map((c) => `${c.request.target}:${c.status}`).join(', ') || '-';
  // A gate's verdict is its last run; skipped gates are left out.
  const verdicts = new Map(s.gates.filter((g) => g.status !== 'skipped').map((g) => [g.gate, g.status]));
  const notPassed = [...verdicts].filter(([, v]) => v !== 'passed').map(([g, v]) => `${g} ${v}`);
  const gates = verdicts.size ? (notPassed.length ? notPassed.join(', ') : `${verdicts.size} passed`) : '-';
  const repairs = s.repairs.map((r) => `${r.gate}:${r.ok ? 'ok' : r.stage ?? 'failed'}`).join(', ') || '-';
  lines.push(`${pad(s.ticketId, 8)}${pad(s.status, 14)}${pad(s.attempts.length, 10)}${pad(calls('coder'), 7)}${pad(calls('debugger'), 10)}${pad(fixes, 7)}${pad(routes, 12)}${pad(gates, 29)}${pad(repairs, 33)}${corr}`);
}
const first = runs[0];
process.stdout.write(
  `\nSummary (from the run logs; model: SCRIPTED replay)\n${lines.join('\n')}\n\n` +
    `Workspaces and logs: ${base}/<ticket>/blog-api/.ticket-runner/runs\n` +
    `Inspect one: node ${cli} show ${first.runId} --workspace ${first.ws}\n`,
);
const unexpected = rows.filter((s) => s.status === 'error' || s.status === 'running');
if (unexpected.length) {
  process.stderr.write(`demo: ${unexpected.map((s) => s.ticketId).join(', ')} ended in error; see the logs above\n`);
  process.exitCode = 1;
}
