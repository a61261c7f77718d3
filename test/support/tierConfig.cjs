// The mocha configuration of the tiers that start real tools (test/tools, test/runs, and both at
// once for `npm test`). Their files run in parallel, each in its own workspace: they wait on child
// processes most of the time, so more jobs than cores pay (TEST_JOBS sets how many). Mocha hands
// files to its workers in the order of its list, so the longest files go first: started last, one
// of them would hold the tier open alone. Their order comes from CPU and wall times measured with
// TEST_TIMES (test/support/fileTimes.cjs); a file not named here runs after them.
const { readdirSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');

/** The longest files of the real-tool tiers, longest first (wall times of the whole pool, 2026-11-28). */
const LONGEST_FIRST = [
  'test/runs/cli/shopEsmCli.test.ts',
  'test/runs/scenarios/routes.test.ts',
  'test/runs/scenarios/verdict.test.ts',
  'test/runs/cli/crashSafe.test.ts',
  'test/runs/cli/batch.test.ts',
  'test/runs/scenarios/shopEsm.test.ts',
  'test/runs/cli/runRecord.test.ts',
  'test/runs/scenarios/hostileCoder.test.ts',
  'test/runs/scenarios/coverageGate.test.ts',
  'test/runs/scenarios/hostileExpect.test.ts',
  'test/tools/gates/tscServer.test.ts',
  'test/runs/scenarios/gates.test.ts',
  'test/runs/ops/scenarios.test.ts',
  'test/runs/scenarios/rungs.test.ts',
  'test/runs/scenarios/monoWs.test.ts',
  'test/runs/scenarios/inventoryJest.test.ts',
  'test/runs/cli/yamlTickets.test.ts',
  'test/runs/scenarios/shopEsmRoutes.test.ts',
  'test/runs/cli/batchRateLimit.test.ts',
  'test/runs/cli/damagedLog.test.ts',
  'test/runs/cli/statsCli.test.ts',
  'test/runs/scenarios/shopEsmCoverage.test.ts',
  'test/tools/cli/ticketChecks.test.ts',
  'test/runs/cli/hugeStreamStops.test.ts',
  'test/runs/cli/batchWorkflow.test.ts',
  'test/tools/node/languageWorker.test.ts',
  'test/runs/cli/safeWorkspace.test.ts',
  'test/runs/scenarios/projectTestsOnce.test.ts',
  'test/tools/gates/tscAhead.test.ts',
  'test/runs/cli/rollback.test.ts',
];

function testFiles(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(rel);
    return e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

/** Mocha's options for the test files under `dirs` (folders relative to the repository). */
function tierConfig(...dirs) {
  const rank = (f) => {
    const i = LONGEST_FIRST.indexOf(f);
    return i < 0 ? LONGEST_FIRST.length : i;
  };
  const files = dirs.flatMap(testFiles).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return {
    require: ['tsx/cjs', './test/support/needsDist.cjs', './test/support/fileTimes.cjs'],
    spec: files,
    timeout: 180000,
    reporter: 'dot',
    parallel: true,
    jobs: Number(process.env.TEST_JOBS || 3),
  };
}

module.exports = { tierConfig };
