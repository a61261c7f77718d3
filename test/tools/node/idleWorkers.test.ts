import assert from 'node:assert/strict';
import { CancelledError } from '../../../src/core/errors';
import { endIdleWorkers } from '../../../src/node/diagnostics/idleWorkers';
import { createLanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { LanguageWorker, WorkerDiagnostics } from '../../../src/node/diagnostics/workerPorts';
import { libDir, script, tsconfig } from '../../support/languageWorkerSetup';
import { neverAborted, TempProject } from '../../support/tempProject';

const signal = neverAborted();

/** A caller of a diagnostics worker, as a run's wiring makes one, with its LanguageWorker at hand. */
function diagnosticsOf(root: string): { port: WorkerDiagnostics; worker: LanguageWorker } {
  const worker = new LanguageWorker(script, { service: 'diagnostics', root, libDir }, 'diagnostics');
  return { port: new WorkerDiagnostics(worker), worker };
}

/** What a check says, in an order that does not depend on the service's. */
const said = (r: { checkedFiles: string[]; diagnostics: { file: string; line: number; code: string; message: string }[] }) => ({
  checkedFiles: [...r.checkedFiles].sort(),
  diagnostics: r.diagnostics.map((d) => `${d.file}:${d.line} ${d.code} ${d.message}`).sort(),
});

describe('language workers kept idle between runs', function () {
  this.timeout(120_000);
  beforeEach(() => endIdleWorkers());
  after(() => endIdleWorkers());

  it('the next run takes over the last run’s worker, and its answers are a new service’s', async () => {
    const first = new TempProject({ 'tsconfig.json': tsconfig, 'src/a.ts': "export const a: number = 'one';\n" });
    const second = new TempProject({
      'tsconfig.json': tsconfig,
      'src/types.ts': 'export interface Post { id: number; title: string }\n',
      'src/page.ts':
        "import type { Post } from './types';\nexport const title: number = ({} as Post).title;\nexport const a: number = 1;\n",
    });
    const one = diagnosticsOf(first.root);
    const two = diagnosticsOf(second.root);
    const fresh = createLanguageServiceDiagnostics(second.root, { libDir });
    try {
      const before = await one.port.check(['src/a.ts'], signal);
      assert.deepEqual(said(before).diagnostics, ["src/a.ts:1 TS2322 Type 'string' is not assignable to type 'number'."]);
      const thread = one.worker.threadId;
      one.port.dispose();

      const changed = ['src/types.ts', 'src/page.ts'];
      const taken = await two.port.check(changed, signal);
      assert.equal(two.worker.threadId, thread, 'the second caller took over the first one’s thread');
      assert.deepEqual(said(taken), said(await fresh.check(changed, signal)));
      assert.ok(!taken.checkedFiles.includes('src/a.ts'), 'nothing of the last run’s project is in the next one’s');
    } finally {
      one.port.dispose();
      two.port.dispose();
      fresh.dispose();
      first.remove();
      second.remove();
    }
  });

  it('a library file that changed between two runs is read anew: a kept parse of it is never the next run’s', async () => {
    // The library sits under node_modules, whose parsed files the kept worker keeps for the next run.
    const project = new TempProject({
      'tsconfig.json': tsconfig,
      'node_modules/stats/package.json': JSON.stringify({ name: 'stats', version: '1.0.0', types: 'index.d.ts' }),
      'node_modules/stats/index.d.ts': 'export declare function mean(values: number[]): number;\n',
      'src/report.ts': "import { mean } from 'stats';\nexport const average: number = mean([1, 2, 3]);\n",
    });
    const one = diagnosticsOf(project.root);
    const two = diagnosticsOf(project.root);
    try {
      assert.deepEqual(said(await one.port.check(['src/report.ts'], signal)).diagnostics, []);
      const thread = one.worker.threadId;
      one.port.dispose();

      // The package is updated between the runs: mean now returns a string.
      project.write('node_modules/stats/index.d.ts', 'export declare function mean(values: number[]): string;\n');
      const after = said(await two.port.check(['src/report.ts'], signal));
      assert.equal(two.worker.threadId, thread, 'the second run took over the first one’s thread, with what it kept');
      assert.deepEqual(after.diagnostics, ["src/report.ts:2 TS2322 Type 'string' is not assignable to type 'number'."]);
    } finally {
      one.port.dispose();
      two.port.dispose();
      project.remove();
    }
  });

  it('a worker that a cancelled call is still inside is ended, never handed to the next run', async () => {
    const project = new TempProject({ 'tsconfig.json': tsconfig, 'src/a.ts': 'export const a = 1;\n' });
    const one = diagnosticsOf(project.root);
    const two = diagnosticsOf(project.root);
    try {
      await one.port.check(['src/a.ts'], signal);
      const thread = one.worker.threadId;
      const controller = new AbortController();
      const cut = one.port.check(['src/a.ts'], controller.signal);
      controller.abort();
      await assert.rejects(cut, CancelledError);
      // The worker has not said yet that the call stopped: it may still be inside it.
      one.port.dispose();
      await two.port.check(['src/a.ts'], signal);
      assert.notEqual(two.worker.threadId, thread, 'the next run got a thread of its own');
    } finally {
      one.port.dispose();
      two.port.dispose();
      project.remove();
    }
  });
});
