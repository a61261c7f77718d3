import { readTestSource } from '../common/testSource';

/** A case of the file: its name, with the names of the suites around it, outermost first. */
export interface OutlinedCase {
  name: string;
  suites: string[];
}

/** What a ticket drafted from a test needs of it: the work it declares and what it imports. */
export interface TestOutline {
  /** The names of the suites at the top of the file, in order. */
  topSuites: string[];
  /** Every case to run whose name is a string literal, in order: a skipped one is no work to do. */
  cases: OutlinedCase[];
  /** How many cases have a name computed at run time (a variable, a template with `${}`, a table). */
  unnamedCases: number;
  /** Every module specifier the file imports or requires, in order, once each. */
  imports: string[];
}

/** Reads the suites, cases and imports of a test file's text (common/testSource.ts reads it). */
export function outlineTest(text: string): TestOutline {
  const read = readTestSource(text);
  return {
    topSuites: read.topSuites,
    cases: read.cases.filter((c) => !c.skipped).map((c) => ({ name: c.names[c.names.length - 1]!, suites: c.names.slice(0, -1) })),
    unnamedCases: read.unreadable.filter((u) => u.kind === 'case').length,
    imports: read.imports,
  };
}
