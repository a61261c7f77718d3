import * as assert from 'node:assert/strict';
import { renderTestFile } from '../../../src/core/stages/materializer';
import { Expectation, MAX_PROPERTY_RUNS, TestFile, type PropertyExpectation } from '../../../src/core/schema/testPlan';

/** A property expectation as a plan would write it, with `over` replacing its fields. */
function aProperty(over: Record<string, unknown> = {}): unknown {
  return {
    kind: 'property',
    arbitraries: ['fc.string()', 'fc.nat()'],
    params: ['s', 'n'],
    predicate: 'slugify(s).length <= s.length + n',
    ...over,
  };
}

/** A test file of one case with these expectations. */
function aFile(expect: unknown[], over: Record<string, unknown> = {}): TestFile {
  return TestFile.parse({
    path: 'test/slug.test.ts',
    suite: 'slug',
    imports: [{ from: '../src/slug', names: ['slugify'] }],
    cases: [{ name: 'keeps it short', criterion: 'AC1', expect }],
    ...over,
  });
}

const issues = (value: unknown): string[] =>
  (Expectation.safeParse(value).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

describe('test plan: the property expectation', () => {
  it('takes arbitraries, their parameters, a predicate and a number of runs (100 unless given)', () => {
    const parsed = Expectation.parse(aProperty()) as PropertyExpectation;
    assert.deepEqual(parsed, {
      kind: 'property',
      arbitraries: ['fc.string()', 'fc.nat()'],
      params: ['s', 'n'],
      predicate: 'slugify(s).length <= s.length + n',
      runs: 100,
    });
    assert.equal((Expectation.parse(aProperty({ runs: 7 })) as PropertyExpectation).runs, 7);
  });

  it('refuses, saying why, a parameter count that is not the arbitraries count, a name given twice, a name that is no identifier', () => {
    assert.deepEqual(issues(aProperty({ params: ['s'] })), [
      'params: a property draws one value per parameter: arbitraries has 2, params has 1 (s)',
    ]);
    assert.deepEqual(issues(aProperty({ params: ['s', 's'] })), ['params: each parameter needs its own name: s is given twice']);
    assert.deepEqual(issues(aProperty({ params: ['s', 'n m'] })), ['params.1: a parameter is a plain identifier, such as s or count']);
  });

  it('refuses no arbitrary, an empty predicate, and runs out of 1 to the maximum', () => {
    assert.ok(issues(aProperty({ arbitraries: [], params: [] })).some((i) => i.startsWith('arbitraries:')));
    assert.ok(issues(aProperty({ predicate: '' })).some((i) => i.startsWith('predicate:')));
    for (const runs of [0, 1.5, MAX_PROPERTY_RUNS + 1])
      assert.ok(
        issues(aProperty({ runs })).some((i) => i.startsWith('runs:')),
        String(runs),
      );
    assert.deepEqual(issues(aProperty({ seed: 1 })).length, 1, 'the seed is the run’s, never the plan’s');
  });
});

describe('materializer: properties', () => {
  const ts = { language: 'ts', moduleKind: 'esm' } as const;

  it('renders fc.assert over fc.property, with the seed and the number of runs, for every framework', () => {
    for (const framework of ['node:test', 'vitest', 'jest', 'mocha'] as const) {
      const content = renderTestFile(aFile([aProperty({ runs: 250 })]), framework, ts);
      assert.match(
        content,
        /^ {4}fc\.assert\(fc\.property\(fc\.string\(\), fc\.nat\(\), \(s, n\) => slugify\(s\)\.length <= s\.length \+ n\), \{ seed: propertySeed, numRuns: 250 \}\);$/m,
        framework,
      );
      assert.match(content, /^import \* as fc from 'fast-check';$/m, framework);
    }
  });

  it('reads the seed the run pinned before the code under test loaded, and draws one when run by hand', () => {
    const content = renderTestFile(aFile([aProperty()]), 'node:test', ts);
    assert.match(content, /^const pinnedSeed: unknown = Reflect\.get\(globalThis, Symbol\.for\('ticket-runner\.property-seed'\)\);$/m);
    assert.match(
      content,
      /^const propertySeed = typeof pinnedSeed === 'number' \? pinnedSeed : Date\.now\(\) \^ \(Math\.random\(\) \* 0x100000000\);$/m,
    );
    const js = renderTestFile(aFile([aProperty()]), 'jest', { language: 'js', moduleKind: 'cjs' });
    assert.match(js, /^const fc = require\('fast-check'\);$/m);
    assert.match(js, /^const pinnedSeed = Reflect\.get\(/m);
  });

  it('makes the property and its case async when the predicate awaits, and keeps an object literal an expression', () => {
    const content = renderTestFile(
      aFile([
        aProperty({ arbitraries: ['fc.nat()'], params: ['n'], predicate: '(await load(n)).ok' }),
        aProperty({ arbitraries: ['fc.nat()'], params: ['n'], predicate: '{ n }.n === n' }),
      ]),
      'vitest',
      ts,
    );
    assert.match(content, /^ {2}it\('\[AC1\] keeps it short', async \(\) => \{$/m);
    assert.match(
      content,
      /^ {4}await fc\.assert\(fc\.asyncProperty\(fc\.nat\(\), async \(n\) => \(await load\(n\)\)\.ok\), \{ seed: propertySeed, numRuns: 100 \}\);$/m,
    );
    assert.match(content, /\(n\) => \(\{ n \}\.n === n\)\)/);
  });

  it('fails every case when fast-check no longer fails a false property, as for a silenced assertion', () => {
    const content = renderTestFile(aFile([aProperty()]), 'mocha', ts);
    assert.match(content, /try \{ fc\.assert\(fc\.property\(fc\.constant\(0\), \(\) => false\)\); silenced\.push\('fc\.assert'\); \}/);
  });

  it('adds nothing to a file without a property, and no second import of fast-check to a file that has one as fc', () => {
    const plain = renderTestFile(aFile([{ kind: 'truthy', actual: 'true' }]), 'node:test', ts);
    assert.doesNotMatch(plain, /fast-check|propertySeed|pinnedSeed|fc\./);
    const own = renderTestFile(
      aFile([aProperty()], {
        imports: [
          { from: 'fast-check', namespace: 'fc' },
          { from: '../src/slug', names: ['slugify'] },
        ],
      }),
      'node:test',
      ts,
    );
    assert.equal(own.match(/from 'fast-check'/g)?.length, 1);
  });
});
