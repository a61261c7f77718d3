// Runs test tiers again and again, to find the tests that fail only sometimes: each run is
// `mocha` with the tier's own config (the real-tool tiers with their files in parallel, as
// `npm test` runs them) and the JSON reporter, one after another, so a flaky test shows up
// under the load the suite makes itself. Prints a line per run and, at the end, the tally and
// every test that failed with how often and its first error. Exits 0 only when every run passed.
//
//   node scripts/repeat-unit.mjs                       10 runs of the real-tool tiers (tools, runs)
//   node scripts/repeat-unit.mjs --times 5 --tier unit --grep rollback
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'Usage: node scripts/repeat-unit.mjs [--times N] [--tier unit|tools|runs]... [--grep PATTERN]';
/** Each tier's mocha config, in the tier's folder. */
const TIERS = { unit: 'test/unit/.mocharc.cjs', tools: 'test/tools/.mocharc.cjs', runs: 'test/runs/.mocharc.cjs' };
let options;
try {
  options = parseArgs({
    options: {
      times: { type: 'string', default: '10' },
      tier: { type: 'string', multiple: true, default: ['tools', 'runs'] },
      grep: { type: 'string' },
      help: { type: 'boolean' },
    },
  }).values;
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

const unknown = options.tier.filter((t) => !(t in TIERS));
if (unknown.length) {
  process.stderr.write(`repeat-unit: no tier "${unknown.join('", "')}": the tiers are ${Object.keys(TIERS).join(', ')}. ${USAGE}\n`);
  process.exit(3);
}

/** An error's first 40 lines, indented under its test's title. */
function indented(text) {
  const lines = text.split('\n');
  return (
    lines
      .slice(0, 40)
      .map((l) => `      ${l}`)
      .join('\n') + (lines.length > 40 ? `\n      … ${lines.length - 40} more lines` : '')
  );
}

/** One run of a tier: its JSON report goes to a file, so the tests' own output cannot garble it. */
function runOnce(tier, out) {
  const args = [
    join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'),
    '--config',
    TIERS[tier],
    '--reporter',
    'json',
    '--reporter-option',
    `output=${out}`,
  ];
  if (options.grep) args.push('--grep', options.grep);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('close', (code) => resolve(code));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'repeat-unit-'));
const failures = new Map();
/** The first error of each failed test, by the same key. */
const errors = new Map();
let passedRuns = 0;
try {
  for (let i = 1; i <= times; i++) {
    for (const tier of options.tier) {
      const out = join(dir, `run-${i}-${tier}.json`);
      const started = Date.now();
      const code = await runOnce(tier, out);
      let report;
      try {
        report = JSON.parse(readFileSync(out, 'utf8'));
      } catch {
        report = { stats: { passes: 0, failures: 0 }, failures: [] };
      }
      for (const f of report.failures) {
        const key = `${tier}: ${f.fullTitle}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
        // The first error of each, for its cause: the report file goes with the temporary folder.
        if (!errors.has(key)) errors.set(key, `run ${i}: ${String(f.err?.stack ?? f.err?.message ?? '(no error)')}`);
      }
      const ok = code === 0 && report.failures.length === 0;
      if (ok) passedRuns++;
      const minutes = ((Date.now() - started) / 60_000).toFixed(1);
      process.stdout.write(
        `run ${i}/${times}, ${tier}: ${ok ? 'passed' : `FAILED (exit ${code})`}, ${report.stats.passes} passing, ${report.stats.failures} failing, ${minutes} min\n`,
      );
      // Each failure as it happens, so a long repeat stopped early still tells what failed and why.
      for (const f of report.failures)
        process.stdout.write(`  ${f.fullTitle}\n${indented(String(f.err?.stack ?? f.err?.message ?? '(no error)'))}\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const runs = times * options.tier.length;
process.stdout.write(`\n${passedRuns} of ${runs} runs passed\n`);
for (const [title, n] of [...failures].sort((a, b) => b[1] - a[1])) {
  process.stdout.write(`  failed ${n}×: ${title}\n`);
  process.stdout.write(`${indented(errors.get(title))}\n`);
}
process.exit(passedRuns === runs ? 0 : 1);
