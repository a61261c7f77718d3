// Preloaded (`--require`) into every node:test and mocha process of a run, before the test file
// and the code under test: it freezes the assertion library and node:test's API. The code under
// test runs in that process and could otherwise replace them, silencing `assert.strictEqual`
// everywhere but in the rendered test's control, or turning `it` into `it.skip`; a frozen
// export cannot be replaced (the assignment throws in strict code and does nothing elsewhere).
// Node's own modules call their internals through primordials, so patching globals cannot
// reach them either. Built to dist/testApisFrozen.cjs.
import { createRequire } from 'node:module';

const load = createRequire(__filename);
const assert = load('node:assert') as typeof import('node:assert');
Object.freeze(assert);
Object.freeze(assert.strict);
Object.freeze(load('node:test'));
