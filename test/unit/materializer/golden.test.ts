import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GENERATED_HEADER, materialize, renderTestFile, type RenderOptions } from '../../../src/core/stages/materializer';
import { TEST_FRAMEWORKS, type TestFile } from '../../../src/core/schema/testPlan';
import { FRAMEWORK_DIR, loadPlan } from '../../support/materializerFixtures';

const GOLDEN = path.join(__dirname, 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const plan = loadPlan(path.join(GOLDEN, 'plan.json'));

function onlyFile(): TestFile {
  const [file] = plan.files;
  if (file === undefined) throw new Error('golden/plan.json has no file');
  return file;
}

// TypeScript is written with import whatever the module kind; JavaScript CommonJS is the one case for require().
const SHAPES: readonly RenderOptions[] = [
  { language: 'ts', moduleKind: 'esm' },
  { language: 'js', moduleKind: 'cjs' },
];

describe('materializer: golden files', () => {
  for (const framework of TEST_FRAMEWORKS) {
    for (const options of SHAPES) {
      // The .golden ending keeps these files out of the project's type-check and lint.
      const name = `${FRAMEWORK_DIR[framework]}.${options.moduleKind}.${options.language}.golden`;
      it(`${framework}, ${options.language} as ${options.moduleKind}: matches golden/${name}`, () => {
        const rendered = renderTestFile(onlyFile(), framework, options);
        const file = path.join(GOLDEN, name);
        if (UPDATE) fs.writeFileSync(file, rendered);
        assert.ok(fs.existsSync(file), `golden/${name} is missing: run the suite with UPDATE_GOLDEN=1 to write it`);
        assert.equal(
          rendered,
          fs.readFileSync(file, 'utf8'),
          `golden/${name} differs: if the change is intended, rerun with UPDATE_GOLDEN=1`,
        );
      });
    }
  }
});

describe('materializer: output', () => {
  it('is byte-identical when rendered twice, and from a copy of the plan', () => {
    for (const framework of TEST_FRAMEWORKS) {
      for (const options of SHAPES) {
        const first = renderTestFile(onlyFile(), framework, options);
        assert.equal(renderTestFile(onlyFile(), framework, options), first);
        assert.equal(renderTestFile(structuredClone(onlyFile()), framework, { ...options }), first);
      }
    }
  });

  it('starts with the generated-file header and keeps a stable layout', () => {
    for (const framework of TEST_FRAMEWORKS) {
      const content = renderTestFile(onlyFile(), framework, { language: 'ts', moduleKind: 'esm' });
      assert.ok(content.startsWith(`${GENERATED_HEADER.join('\n')}\n\n`), framework);
      assert.match(GENERATED_HEADER.join(' '), /Ticket Runner/);
      assert.match(GENERATED_HEADER.join(' '), /test plan/);
      assert.match(GENERATED_HEADER.join(' '), /not edit/i);
      assert.ok(content.endsWith('});\n') && !content.endsWith('\n\n'), `${framework}: one trailing newline`);
      for (const line of content.split('\n')) {
        assert.doesNotMatch(line, /[ \t]$/, `${framework}: trailing white space in ${JSON.stringify(line)}`);
        assert.doesNotMatch(line, /^\t/, `${framework}: tab indentation in ${JSON.stringify(line)}`);
      }
    }
  });

  it('names each case after its criterion, once', () => {
    const content = renderTestFile(onlyFile(), 'vitest', { language: 'ts', moduleKind: 'esm' });
    assert.match(content, /^ {2}it\('\[AC1\] sums line prices', \(\) => \{$/m);
    assert.match(content, /^ {2}it\('\[AC3\] rejects a malformed coupon', /m);
    assert.match(content, /^ {2}it\('applies a discount', async \(\) => \{$/m);
  });

  it('imports only the hooks the file uses', () => {
    const bare: TestFile = { ...onlyFile(), hooks: undefined };
    assert.match(
      renderTestFile(bare, 'node:test', { language: 'ts', moduleKind: 'esm' }),
      /^import \{ describe, it \} from 'node:test';$/m,
    );
    assert.match(
      renderTestFile(bare, 'vitest', { language: 'js', moduleKind: 'esm' }),
      /^import \{ describe, expect, it \} from 'vitest';$/m,
    );
    assert.doesNotMatch(renderTestFile(bare, 'jest', { language: 'ts', moduleKind: 'esm' }), /beforeAll|afterAll|from 'jest'/);
  });

  it('materializes every file of a plan at its path, in plan order, for the framework it is given', () => {
    const second: TestFile = { ...onlyFile(), path: 'test/other.test.ts', suite: 'other' };
    const files = materialize({ framework: 'jest', files: [onlyFile(), second] }, 'mocha', { language: 'ts', moduleKind: 'esm' });
    assert.deepEqual(
      files.map((file) => file.path),
      ['test/cart.test.ts', 'test/other.test.ts'],
    );
    assert.equal(files[0]?.content, renderTestFile(onlyFile(), 'mocha', { language: 'ts', moduleKind: 'esm' }));
    assert.match(files[1]?.content ?? '', /^describe\('other', \(\) => \{$/m);
  });
});
