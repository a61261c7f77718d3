// Opt-in timing of a tier's files: with TEST_TIMES=<file>, each test file appends one JSON line to
// that file: its path, the wall time from its first hook to its last, and the CPU time it used, with
// the child processes it waited for. A floor, not the whole: tools that end unwaited (a worker's
// processes, sandboxed test processes) are missed, a half or more of a run's CPU. Mocha's parallel
// mode replays a file's events only when the file ends, so the reporter cannot time files; root
// hooks run inside each file's worker and can. CPU time says what a file costs on a loaded
// machine, where wall time says mostly how loaded it was.
const { appendFileSync, readFileSync } = require('node:fs');

const out = process.env.TEST_TIMES;

/** This process's CPU time and its waited-for children's, in ms (Linux; 0 elsewhere). */
function cpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14-17 of proc(5); fields[0] here is field 3.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks * 10;
  } catch {
    return 0;
  }
}

let startedAt = 0;
let cpuAtStart = 0;

exports.mochaHooks = out
  ? {
      beforeAll() {
        startedAt = Date.now();
        cpuAtStart = cpuMs();
      },
      afterAll() {
        const files = new Set();
        const walk = (suite) => {
          if (suite.file) files.add(suite.file);
          suite.suites.forEach(walk);
          suite.tests.forEach((t) => t.file && files.add(t.file));
        };
        walk(this.test.parent);
        const line = {
          files: [...files].map((f) => f.slice(process.cwd().length + 1)),
          ms: Date.now() - startedAt,
          cpuMs: cpuMs() - cpuAtStart,
        };
        appendFileSync(out, JSON.stringify(line) + '\n');
      },
    }
  : {};
