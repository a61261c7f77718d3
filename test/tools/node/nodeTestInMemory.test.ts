import { caseName } from '../../../src/core/stages/materializer/render';
import { inMemoryAttacks } from '../../support/inMemoryAttacks';
import { fixturePlan } from '../../support/materializerFixtures';

/** The rendered cases' names in their suite, as a test file can declare them again. */
const PLANNED = fixturePlan('node:test').files[0]!.cases.map(caseName);

/** Turns node:test's serialized "test:fail" events into "test:pass" ones of the same length, as the child writes them to the root. */
const REWRITE = `const rewritten = (chunk: unknown): unknown => {
  if (!(chunk instanceof Uint8Array)) return chunk;
  const text = Buffer.from(chunk).toString('latin1');
  return text.includes('test:fail') ? Buffer.from(text.replaceAll('test:fail', 'test:pass'), 'latin1') : chunk;
};
process.on('exit', () => { process.exitCode = 0; });
`;

/**
 * Code under test that changes, in memory and at import, what node:test reports from the test
 * file's process: no file of the runner is written. Each would make the wrong comparison pass.
 */
const IN_MEMORY: Record<string, string> = {
  'process.stdout.write wrapped: each serialized failure rewritten as a pass, and the exit code 0': `${REWRITE}
const write = process.stdout.write;
process.stdout.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
  return (write as (...a: unknown[]) => boolean).call(this, rewritten(chunk), ...rest);
} as typeof process.stdout.write;`,
  "process.stdout.write wrapped as above, and fs.writeSync wrapped to read the witness's key from its lines and write a pass after each failure": `import fs from 'node:fs';
${REWRITE}
const write = process.stdout.write;
process.stdout.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
  return (write as (...a: unknown[]) => boolean).call(this, rewritten(chunk), ...rest);
} as typeof process.stdout.write;
const writeSync = fs.writeSync as (...a: unknown[]) => number;
(fs as { writeSync: unknown }).writeSync = function (this: unknown, fd: unknown, text: unknown, ...rest: unknown[]) {
  const written = writeSync.call(this, fd, text, ...rest);
  const failed = typeof text === 'string' && /^(\\w+) \\{"ran":("?[\\w.]+"?),"passed":false\\}$/m.exec(text);
  if (failed) writeSync.call(this, fd, \`\${failed[1]} {"ran":\${failed[2]},"passed":true}\\n\`);
  return written;
};`,
  'the report written to fd 1 directly, each failure rewritten as a pass, and the exit code 0': `import { writeSync } from 'node:fs';
${REWRITE}
process.stdout.write = function (chunk: unknown, ...rest: unknown[]) {
  writeSync(1, rewritten(chunk) as Uint8Array);
  const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
  done?.();
  return true;
} as typeof process.stdout.write;`,
  "AsyncResource's runInAsyncScope, which runs each test's function, swallows what it throws": `import { AsyncResource } from 'node:async_hooks';
const run = AsyncResource.prototype.runInAsyncScope;
AsyncResource.prototype.runInAsyncScope = function (this: AsyncResource, fn: (...a: unknown[]) => unknown, self: unknown, ...args: unknown[]) {
  try {
    const r = run.call(this, fn, self, ...args) as unknown;
    return r instanceof Promise ? r.catch(() => undefined) : r;
  } catch {
    return undefined;
  }
} as typeof run;`,
  "each test's function swapped for one that passes, through an async hook that sees each test made": `import { createHook } from 'node:async_hooks';
createHook({
  init(_id: number, type: string, _trigger: number, test: { fn?: unknown; name?: unknown }) {
    if (type === 'Test') queueMicrotask(() => { if (typeof test.name === 'string' && test.name.startsWith('[AC')) test.fn = () => {}; });
  },
}).enable();`,
  "the suite's body kept from running, and the planned cases declared again with functions that pass": `import { AsyncResource } from 'node:async_hooks';
import { describe, it } from 'node:test';
const run = AsyncResource.prototype.runInAsyncScope;
let declaring = true;
AsyncResource.prototype.runInAsyncScope = function (this: { name?: unknown; constructor: { name: string } }, ...args: unknown[]) {
  if (!declaring && this.constructor.name === 'Suite' && this.name === 'version') return undefined;
  return (run as (...a: unknown[]) => unknown).apply(this, args);
} as typeof run;
describe('version', () => {
  for (const name of ${JSON.stringify(PLANNED)}) it(name, () => {});
});
declaring = false;`,
};

describe('node:test judged when the code under test changes its reports in memory', function () {
  this.timeout(120_000);
  inMemoryAttacks({
    framework: 'node:test',
    render: { language: 'ts', moduleKind: 'esm' },
    file: 'test/version.test.ts',
    entry: 'src/index.ts',
    right: "export * from './version';\nexport { default } from './version';\n",
    wrong: 'comparison',
    failing: 'version > [AC1] orders versions by number, not as text',
    untouched: 'version > [AC3] tells prereleases apart',
    attacks: IN_MEMORY,
  });
});
