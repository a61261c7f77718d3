// Runs the unit suite again and again, to find the tests that fail only sometimes: each run is
// `mocha` with the project's own config and the JSON reporter, one after another (a flaky test
// shows up under the same load the suite makes itself). Prints a line per run and, at the end,
// the tally and every test that failed with how often. Exits 0 only when every run passed.
//
//   node scripts/repeat-unit.mjs                 20 runs
//   node scripts/repeat-unit.mjs --times 5 --grep rollback
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'Usage: node scripts/repeat-unit.mjs [--times N] [--grep PATTERN]';
let options;
try {
  options = parseArgs({ options: { times: { type: 'string', default: '20' }, grep: { type: 'string' }, help: { type: 'boolean' } } }).values;
} catch (e) {
  process.stderr.write(`repeat-unit: ${e.message}. ${USAGE}\n`);
  process.exit(3);
}
if (options.help) {
  process.stderr.write(USAGE + '\n');
  process.exit(0);
}
const times = Number(options.times);
if (!Number.isInteger(times) || times < 1) {
  process.stderr.write(`repeat-unit: --times takes a whole number from 1, got "${options.times}". ${USAGE}\n`);
  process.exit(3);
}

/** One run of the suite: its JSON report goes to a file, so the tests' own output cannot garble it. */
function runOnce(out) {
  const args = [join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--reporter', 'json', '--reporter-option', `output=${out}`];
  if (options.grep) args.push('--grep', options.grep);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', (code) => resolve(code));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'repeat-unit-'));
const failures = new Map();
let passedRuns = 0;
try {
  for (let i = 1; i <= times; i++) {
    const out = join(dir, `run-${i}.json`);
    const started = Date.now();
    const code = await runOnce(out);
    let report;
    try {
      report = JSON.parse(readFileSync(out, 'utf8'));
    } catch {
      report = { stats: { passes: 0, failures: 0 }, failures: [] };
    }
    for (const f of report.failures) failures.set(f.fullTitle, (failures.get(f.fullTitle) ?? 0) + 1);
    const ok = code === 0 && report.failures.length === 0;
    if (ok) passedRuns++;
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    process.stdout.write(`run ${i}/${times}: ${ok ? 'passed' : `FAILED (exit ${code})`}, ${report.stats.passes} passing, ${report.stats.failures} failing, ${minutes} min\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`\n${passedRuns} of ${times} runs passed\n`);
for (const [title, n] of [...failures].sort((a, b) => b[1] - a[1])) process.stdout.write(`  failed ${n}×: ${title}\n`);
process.exit(passedRuns === times ? 0 : 1);
