import type { PropertyExpectation, TestFile, TestImport } from '../../schema/testPlan';
import type { RenderOptions } from './dialect';
import { awaits, sourceText } from './source';

/**
 * The global symbol the test process's preload pins the attempt's seed under, before the code
 * under test loads (src/node/testRunners): a seed read from the environment there could be
 * changed by that code, to draw inputs its bug survives.
 */
export const PROPERTY_SEED_KEY = 'ticket-runner.property-seed';

/** The name the rendered file binds the seed to, and fast-check's namespace. */
const SEED_NAME = 'propertySeed';
const FC = 'fc';

/** fast-check, imported as a namespace: it type-checks with or without esModuleInterop. */
const FAST_CHECK_IMPORT: TestImport = { from: 'fast-check', names: [], namespace: FC };

export function usesProperties(file: TestFile): boolean {
  return file.cases.some((c) => c.expect.some((e) => e.kind === 'property'));
}

/** fast-check's import, unless the plan's own imports already bind it as `fc`. */
export function propertyImports(file: TestFile): TestImport[] {
  if (!usesProperties(file)) return [];
  return file.imports.some((i) => i.from === FAST_CHECK_IMPORT.from && i.namespace === FC) ? [] : [FAST_CHECK_IMPORT];
}

/**
 * The seed every property of the file draws its inputs from: the attempt's, which the run chose
 * and recorded in its log, so a replay draws the same inputs; run by hand, one fast-check's way.
 * fast-check prints it with every counterexample, so a failure by hand can be replayed too.
 */
export function propertySeedLines(file: TestFile, options: RenderOptions): string[] {
  if (!usesProperties(file)) return [];
  const pinned = options.language === 'ts' ? 'const pinnedSeed: unknown' : 'const pinnedSeed';
  return [
    "// The seed of this file's properties: Ticket Runner's for the attempt (recorded in the run's log), or, run by hand, a new one.",
    `${pinned} = Reflect.get(globalThis, Symbol.for('${PROPERTY_SEED_KEY}'));`,
    `const ${SEED_NAME} = typeof pinnedSeed === 'number' ? pinnedSeed : Date.now() ^ (Math.random() * 0x100000000);`,
  ];
}

/** The control of fast-check: a property that is false must still fail (see `controlBlock`). */
export const PROPERTY_CONTROLS: readonly (readonly [string, string])[] = [
  ['fc.assert', `${FC}.assert(${FC}.property(${FC}.constant(0), () => false));`],
];

/**
 * `fc.assert(fc.property(arb, …, (param, …) => predicate), { seed, numRuns })`: fast-check draws
 * `runs` inputs from the seed and, on a counterexample, shrinks it and throws a message with the
 * seed and the shrunk counterexample, which the runner reports as the case's failure.
 */
export function renderProperty(e: PropertyExpectation): string {
  const body = sourceText(e.predicate);
  const isAsync = awaits([body]);
  const predicate = `${isAsync ? 'async ' : ''}(${e.params.join(', ')}) => ${body.startsWith('{') ? `(${body})` : body}`;
  const property = `${FC}.${isAsync ? 'asyncProperty' : 'property'}(${[...e.arbitraries.map(sourceText), predicate].join(', ')})`;
  return `${isAsync ? 'await ' : ''}${FC}.assert(${property}, { seed: ${SEED_NAME}, numRuns: ${e.runs} });`;
}
