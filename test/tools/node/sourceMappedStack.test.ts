import assert from 'node:assert/strict';
import * as ts from 'typescript';
import { ProcessTestRunner } from '../../../src/node/testRunners/testRunner';
import { StackMapper } from '../../../src/node/testRunners/sourceMappedStack';
import { buildReporter, neverAborted, TempProject } from '../../support/tempProject';

/** Line 7 throws; the compiled JavaScript has it elsewhere (the types are gone, a prologue is added). */
const SOURCE = `export interface Price {
  cents: number;
}

/** Throws on negative prices. */
export function check(p: Price): number {
  if (p.cents < 0) throw new RangeError('negative price');
  return p.cents;
}
`;

function compile(inline: boolean): { js: string; map: string } {
  const out = ts.transpileModule(SOURCE, {
    fileName: 'price.ts',
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      sourceMap: !inline,
      inlineSourceMap: inline,
      sourceRoot: '../src',
    },
  });
  return { js: out.outputText.replace(/sourceMappingURL=module\.js\.map/, 'sourceMappingURL=price.js.map'), map: out.sourceMapText ?? '' };
}

describe('stack frames through source maps', function () {
  this.timeout(40_000);
  let project: TempProject;
  before(() => {
    const external = compile(false);
    project = new TempProject({
      'package.json': '{ "name": "compiled", "private": true }',
      'src/price.ts': SOURCE,
      'dist/price.js': external.js,
      'dist/price.js.map': external.map,
      'inline/price.js': compile(true).js,
      'broken/price.js': `${external.js.split('\n').slice(0, -1).join('\n')}\n//# sourceMappingURL=price.js.map\n`,
      'broken/price.js.map': '{ not a map',
      'test/price.test.cjs':
        "const { test } = require('node:test');\nconst { check } = require('../dist/price.js');\ntest('rejects a negative price', () => { check({ cents: -1 }); });\n",
    });
  });
  after(() => project.remove());

  it('the runner reports a compiled frame at its TypeScript line', async () => {
    const reporter = await buildReporter(project.path('out/nodeTestReporter.mjs'));
    const runner = new ProcessTestRunner({ root: project.root, nodeTestReporter: reporter, nodePath: process.execPath });
    const result = await runner.run({ framework: 'node:test', files: ['test/price.test.cjs'], timeoutMs: 30_000 }, neverAborted());
    assert.equal(result.status, 'failed');
    const stack = result.cases[0]?.stack ?? '';
    assert.ok(stack.includes(`${project.path('src/price.ts')}:7:`), stack);
    assert.ok(!stack.includes('dist/price.js'), stack);
  });

  it('maps inline maps too, and leaves a frame with no map or a broken one as it was', () => {
    const mapper = new StackMapper();
    const frame = (dir: string) => `RangeError: negative price\n    at check (${project.path(`${dir}/price.js`)}:${jsLine()}:15)`;
    assert.match(mapper.map(frame('inline')), new RegExp(`src/price\\.ts:7:\\d+\\)$`));
    assert.equal(mapper.map(frame('broken')), frame('broken'));
    const unmapped = `Error: x\n    at ${project.path('test/price.test.cjs')}:3:42`;
    assert.equal(mapper.map(unmapped), unmapped);
  });
});

/** The compiled line of the throw. */
function jsLine(): number {
  return (
    compile(false)
      .js.split('\n')
      .findIndex((l) => l.includes('new RangeError')) + 1
  );
}
