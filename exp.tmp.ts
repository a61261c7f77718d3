import * as path from 'node:path';
import { ProcessTestRunner } from './src/node/testRunners/testRunner';
import { copyFixture, FIXTURES, loadPlan, makeTempDir, REPO_ROOT, writeRendered } from './test/support/materializerFixtures';
(async () => {
  const fw = (process.argv[2] ?? 'vitest') as 'vitest' | 'jest';
  const dir = makeTempDir(`${fw}-exp`);
  copyFixture(fw, dir, 'correct');
  const files = writeRendered(dir, loadPlan(path.join(FIXTURES, fw, 'properties.json')), fw, { language: process.argv[3] === 'ts' ? 'ts' : fw === 'jest' ? 'js' : 'ts', moduleKind: (process.argv[4] as 'esm' | 'cjs') ?? 'esm' });
  const runner = new ProcessTestRunner({ root: dir, nodeTestReporter: path.join(REPO_ROOT, 'dist', 'nodeTestReporter.mjs'), fallbackDir: REPO_ROOT, nodePath: process.execPath });
  const r = await runner.run({ framework: fw, files, timeoutMs: 60000, propertySeed: 5 }, new AbortController().signal);
  console.log(r.status, r.cases.map((c) => [c.name, c.status]), r.output.slice(0, 3000));
  runner.dispose();
  console.log(dir);
})();
