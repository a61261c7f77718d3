// `npm test`: every tier, in the order that keeps a two-core machine busy without overloading it.
//
//   build, typecheck, lint, the pure tier, code-server's install ── side by side
//   then: real tiers (tools + runs, one pool of parallel files) ── webview ── vscode ── package
//
// The first group is short and each part mostly computes, so it overlaps well. The later tiers
// start processes that time themselves (stalled streams, wall-time budgets, code-server's UI), so
// they run one after another, each with the machine to itself, as their timeouts assume; the
// parallel pool fills the cores on its own. `package` rebuilds dist/ for production, so it is last.
// Each step's output goes to test-results/logs/<step>.log and is printed whole when the step ends,
// so the steps' lines never interleave. A step runs unless a step it needs failed (nothing runs on a
// failed build); the summary lists each with its time, and the exit code is 1 if any failed.
// Run one step alone with its npm script (`npm run test:runs` ...); `--only a,b` runs these steps
// and the steps they need.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const logs = join(root, 'test-results', 'logs');
mkdirSync(logs, { recursive: true });
// Each file of the parallel tiers writes its wall and CPU time here (test/support/fileTimes.cjs).
const fileTimes = join(logs, 'file-times.jsonl');
rmSync(fileTimes, { force: true });

/**
 * `needs`: steps that must pass first (a failed one skips this step; `--only` adds them).
 * `after`: steps this one only waits for, passed or failed, when they run at all.
 * @type {{ name: string, command: string, needs: string[], after?: string[] }[]}
 */
const STEPS = [
  { name: 'build', command: 'npm run -s build', needs: [] },
  { name: 'typecheck', command: 'npm run -s typecheck', needs: [] },
  { name: 'lint', command: 'npm run -s lint', needs: [] },
  { name: 'unit', command: 'npm run -s test:unit', needs: [] },
  { name: 'code-server', command: 'bash scripts/install-code-server.sh', needs: [] },
  { name: 'real', command: 'npx mocha --config test/.mocharc.real.cjs', needs: ['build'], after: ['typecheck', 'lint', 'unit'] },
  { name: 'webview', command: 'npm run -s test:webview', needs: ['build'], after: ['real'] },
  { name: 'vscode', command: 'npm run -s test:vscode', needs: ['build', 'code-server'], after: ['webview'] },
  { name: 'package', command: 'npm run -s test:package', needs: [], after: ['real', 'vscode', 'webview'] },
];

function only(argv) {
  const i = argv.indexOf('--only');
  if (i < 0) return STEPS;
  const wanted = new Set(argv[i + 1]?.split(',') ?? []);
  const unknown = [...wanted].filter((n) => !STEPS.some((s) => s.name === n));
  if (unknown.length > 0 || wanted.size === 0) {
    console.error(
      `test: --only takes step names separated by commas (${STEPS.map((s) => s.name).join(', ')}); got ${argv[i + 1] ?? 'nothing'}`,
    );
    process.exit(2);
  }
  const add = (name) => {
    for (const dep of STEPS.find((s) => s.name === name).needs) {
      if (!wanted.has(dep)) {
        wanted.add(dep);
        add(dep);
      }
    }
  };
  for (const name of [...wanted]) add(name);
  return STEPS.filter((s) => wanted.has(s.name));
}

const steps = only(process.argv.slice(2));
const started = Date.now();
const secs = (ms) => `${Math.round(ms / 1000)} s`;

/**
 * CPU time in ms, from /proc (Linux; null elsewhere). `children`: of this process's children it has
 * waited for, each with the children they waited for: a step's whole tree, added when the step ends.
 * `machine`: every core's busy time, which also counts what no step waited for (a detached server).
 */
const TICK_MS = 10; // USER_HZ is 100 on every Linux kernel built for these machines.
function cpuMs(which) {
  try {
    if (which === 'children') {
      const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      return (Number(fields[13]) + Number(fields[14])) * TICK_MS; // cutime, cstime
    }
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).map(Number);
    return (ticks.reduce((a, b) => a + b, 0) - ticks[3] - ticks[4]) * TICK_MS; // all but idle and iowait
  } catch {
    return null;
  }
}
const machineAtStart = cpuMs('machine');
let childrenSeen = cpuMs('children');

/**
 * A step's CPU counted whole, where the machine lets this process make a cgroup (cgroup v1's
 * cpuacct, as root): every process the step starts stays in it, waited for or not (esbuild's
 * service, a detached code-server). Elsewhere the waited children's time stands in.
 */
const CPUACCT = '/sys/fs/cgroup/cpuacct';
function stepGroup(name) {
  const dir = join(CPUACCT, `npm-test-${process.pid}-${name}`);
  try {
    mkdirSync(dir);
    return {
      // The step's shell joins the group before it runs anything: nothing it starts is left outside.
      wrap: (command) => `echo $$ > ${dir}/cgroup.procs && ${command}`,
      usedMs: () => Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')) / 1e6,
      // Refused while a process the step left is still in it: the group is then left to the system.
      remove: () => rmdirSync(dir),
    };
  } catch {
    return null;
  }
}
/** @type {Map<string, { code: number, ms: number, cpuMs?: number | null }>} */
const done = new Map();
/** @type {Map<string, number>} */
const running = new Map();

function run(step) {
  return new Promise((resolve) => {
    const file = join(logs, `${step.name}.log`);
    const out = createWriteStream(file);
    const at = Date.now();
    running.set(step.name, at);
    console.log(`▶ ${step.name}: ${step.command}`);
    const group = stepGroup(step.name);
    const child = spawn(group ? group.wrap(step.command) : step.command, {
      cwd: root,
      shell: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TEST_TIMES: fileTimes },
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('close', (code, signal) => {
      out.end(() => {
        running.delete(step.name);
        // This step was just waited for: what its tree used is what the children's time grew by since the last step ended.
        const children = cpuMs('children');
        let stepCpu = children === null || childrenSeen === null ? null : children - childrenSeen;
        childrenSeen = children;
        if (group) {
          try {
            stepCpu = group.usedMs();
          } catch {
            // A group that cannot be read: the waited children's time stands.
          }
          try {
            group.remove();
          } catch {
            // Still in use (see remove).
          }
        }
        // A mocha run that was interrupted can exit 0 with failures on screen: its count decides too.
        const failing = failingCount(readFileSync(file, 'utf8'));
        const result = { code: (code ?? (signal ? 1 : 0)) || (failing > 0 ? 1 : 0), ms: Date.now() - at, cpuMs: stepCpu };
        done.set(step.name, result);
        const verdict = result.code === 0 ? 'passed' : `FAILED (exit ${code ?? signal})`;
        console.log(`\n──── ${step.name}: ${verdict} in ${secs(result.ms)} ────`);
        process.stdout.write(readFileSync(file, 'utf8'));
        console.log(`──── end of ${step.name} ────\n`);
        resolve(result);
      });
    });
  });
}

/** A log without its colour codes (the escape character is written as a string: no control character in a regex literal). */
const plain = (log) => log.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');

/**
 * The "N failing" of the last mocha summary in a step's log (0 when there is none). Only the last
 * summary counts, so a test that prints a fixture's own mocha report cannot fail the step.
 */
function failingCount(log) {
  const text = plain(log);
  const summaries = [...text.matchAll(/^\s*\d+ passing \(/gm)];
  if (summaries.length === 0) return 0;
  const tail = text.slice(summaries.at(-1).index);
  return Number(/^\s*(\d+) failing\b/m.exec(tail)?.[1] ?? 0);
}

/**
 * What a failed step said about its failure, for the summary: from mocha's "N failing" to its end
 * (each failed test's title and error), or the log's last lines for a step that is not mocha. CI
 * may show only the end of the output, so the summary repeats what failed instead of only naming
 * the step.
 */
function failureExcerpt(log, maxLines = 120) {
  const lines = plain(log).split('\n');
  let from = -1;
  lines.forEach((line, i) => {
    if (/^\s*\d+ failing\b/.test(line)) from = i;
  });
  const part = from >= 0 ? lines.slice(from) : lines.slice(-30);
  return part.length > maxLines ? [...part.slice(0, maxLines), `  … ${part.length - maxLines} more lines in the step's log`] : part;
}

/** A step starts when every step it needs has passed and every step it comes after has ended. */
const promises = new Map();
function schedule(step) {
  if (promises.has(step.name)) return promises.get(step.name);
  const waited = (names) => names.filter((n) => steps.some((s) => s.name === n)).map((n) => schedule(steps.find((s) => s.name === n)));
  const p = Promise.all([Promise.all(waited(step.needs)), Promise.all(waited(step.after ?? []))]).then(([needed]) => {
    const failed = step.needs.filter((_, i) => needed[i] && needed[i].code !== 0);
    if (failed.length > 0) {
      const result = { code: 1, ms: 0, skipped: `not run: ${failed.join(', ')} failed` };
      done.set(step.name, result);
      return result;
    }
    return run(step);
  });
  promises.set(step.name, p);
  return p;
}

// A line every two minutes, so a long quiet stretch in CI is visibly still working.
const heartbeat = setInterval(() => {
  const now = Date.now();
  const list = [...running].map(([name, at]) => `${name} ${secs(now - at)}`).join(', ');
  if (list) console.log(`… ${secs(now - started)} in; running: ${list}`);
}, 120_000);

await Promise.all(steps.map(schedule));
clearInterval(heartbeat);

const machineAtEnd = cpuMs('machine');
const machine =
  machineAtStart === null || machineAtEnd === null ? '' : `, ${secs(machineAtEnd - machineAtStart)} of CPU on the machine's cores`;
console.log(`npm test: ${secs(Date.now() - started)} in all${machine}; wall time and CPU (core-seconds) of each step:`);
for (const step of steps) {
  const r = done.get(step.name);
  const cpu = r.cpuMs === undefined || r.cpuMs === null ? '' : `, ${secs(r.cpuMs)} CPU`;
  console.log(
    `  ${r.code === 0 ? 'passed' : r.skipped ? 'skipped' : 'FAILED '}  ${step.name.padEnd(12)} ${r.skipped ?? `${secs(r.ms)}${cpu}`}`,
  );
}
if (existsSync(fileTimes)) {
  const rows = readFileSync(fileTimes, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  rows.sort((a, b) => b.ms - a.ms);
  console.log('The longest files of the parallel tiers (wall, CPU with their processes; the order in test/support/tierConfig.cjs):');
  for (const r of rows.slice(0, 8)) console.log(`  ${secs(r.ms).padStart(6)} ${secs(r.cpuMs).padStart(6)}  ${r.files.join(', ')}`);
}
const failed = steps.filter((s) => done.get(s.name).code !== 0);
for (const step of failed) {
  const r = done.get(step.name);
  const file = join(logs, `${step.name}.log`);
  if (r.skipped || !existsSync(file)) continue;
  console.log(`\nWhat failed in ${step.name}:`);
  for (const line of failureExcerpt(readFileSync(file, 'utf8'))) console.log(`  ${line}`);
}
if (failed.length > 0) console.log(`Failed: ${failed.map((s) => s.name).join(', ')}; each step's whole output is in test-results/logs/.`);
process.exit(failed.length > 0 ? 1 : 0);
