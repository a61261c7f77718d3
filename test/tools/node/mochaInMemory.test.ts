import { caseName } from '../../../src/core/stages/materializer/render';
import { inMemoryAttacks } from '../../support/inMemoryAttacks';
import { fixturePlan } from '../../support/materializerFixtures';

/** The rendered cases' names in their suite, as a test file can declare them again. */
const PLANNED = fixturePlan('mocha').files[0]!.cases.map(caseName);

/** Reaches the mocha that runs the tests, as the code under test can: from its own folder, at import. */
const MOCHA = `import { createRequire } from 'node:module';
const load = createRequire(import.meta.url);
const { Runner } = load('mocha/lib/runner.js');
`;

/** Rewrites mocha's json report as it is written: every failure a pass, and the exit code 0. */
const REPORT_REWRITTEN = `import fs from 'node:fs';
const write = fs.writeFileSync;
fs.writeFileSync = function (file, text, ...rest) {
  if (typeof text === 'string' && text.includes('"failures"')) {
    const report = JSON.parse(text);
    report.passes.push(...report.failures.map(({ err, ...t }) => t));
    report.failures = [];
    report.stats.failures = 0;
    text = JSON.stringify(report);
  }
  return write.call(this, file, text, ...rest);
};
process.on('exit', () => { process.exitCode = 0; });`;

/** Reads the witness's key from the lines it writes, through the fs.writeSync it would call, and writes a pass after each failure. */
const WITNESS_FORGED = `const writeSync = fs.writeSync;
fs.writeSync = function (fd, text, ...rest) {
  const written = writeSync.call(this, fd, text, ...rest);
  const failed = typeof text === 'string' && /^(\\w+) \\{"ran":("?[\\w.]+"?),"passed":false\\}$/m.exec(text);
  if (failed) writeSync.call(this, fd, \`\${failed[1]} {"ran":\${failed[2]},"passed":true}\\n\`);
  return written;
};`;

/**
 * Code under test that changes, in memory and at import, how mocha judges: no file of the runner
 * is written, so the record of the judging tools sees nothing. Each would make the wrong split pass.
 */
const IN_MEMORY: Record<string, string> = {
  'Runner.prototype.fail reports each failure as a pass': `${MOCHA}
Runner.prototype.fail = function (runnable) {
  if (runnable && runnable.type === 'test') { runnable.state = 'passed'; this.emit('pass', runnable); }
};`,
  "Runner.prototype.emit turns each 'fail' into a 'pass' and counts no failure": `${MOCHA}
const emit = Runner.prototype.emit;
Runner.prototype.emit = function (event, runnable, ...rest) {
  if (event === 'fail' && runnable && runnable.type === 'test') { this.failures--; runnable.state = 'passed'; return emit.call(this, 'pass', runnable); }
  return emit.call(this, event, runnable, ...rest);
};`,
  'the json reporter: its report rewritten as it is written, every failure a pass, and the exit code 0': REPORT_REWRITTEN,
  "each test's function swapped for one that passes, from a root hook": `before(function () {
  const walk = (suite) => { for (const t of suite.tests) t.fn = function () {}; suite.suites.forEach(walk); };
  walk(this.test.parent);
});`,
  'the global it wrapped, so each case registers a function that passes': `const it = globalThis.it;
globalThis.it = function (title) { return it.call(this, title, function () {}); };`,
  "each describe's body kept from running, and the planned cases declared again with functions that pass": `const call = Function.prototype.call;
Function.prototype.call = function (self, ...args) {
  if (self && self.title === 'duration' && !self.root && /assertionsStillFail/.test(String(this))) return undefined;
  return call.apply(this, [self, ...args]);
};
describe('duration', () => {
  for (const name of ${JSON.stringify(PLANNED)}) it(name, () => {});
});`,
  "the json reporter's report rewritten, and fs.writeSync wrapped to read the witness's key from its lines and write a pass after each failure": `${REPORT_REWRITTEN}
${WITNESS_FORGED}`,
};

describe('mocha judged when the code under test patches it in memory', function () {
  this.timeout(120_000);
  inMemoryAttacks({
    framework: 'mocha',
    render: { language: 'js', moduleKind: 'esm' },
    file: 'test/duration.test.js',
    entry: 'src/index.js',
    right: "export * from './duration.js';\nexport { default } from './duration.js';\n",
    wrong: 'split',
    failing: 'duration [AC2] splits seconds into units',
    untouched: 'duration [AC1] reads durations',
    attacks: IN_MEMORY,
  });
});
