/**
 * Writes the routing corpus's hand-made variants: the hard cases of routing, each built from a
 * captured case (scripts/captureRoutingCorpus.ts) by changing what a real failure of that kind
 * would change (a stack frame, a diagnostic, a fact of the manifest, the Debugger's answer),
 * and keeping the Debugger's input consistent with the guards' facts. Some scripted answers
 * are wrong on purpose (a "test" claim for a code bug, a "code" claim for a ticket naming a
 * field that does not exist), so the benchmark exercises the guards' vetoes and misses.
 *
 *   npx tsx scripts/routingVariants.ts      (after the capture; rewrites the variant-* cases)
 */
import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { CodeDiagnostic } from '../src/core/schema/checks';
import type { FailureKind } from '../src/core/schema/diagnosis';
import type { RoutingCase } from '../src/core/schema/routingCase';
import { serializeManifest } from '../src/core/stages/manifest/manifestBuilder';
import { loadCorpus, writeCase } from '../src/node/routingCorpus/corpusFiles';
import { REPO_ROOT } from '../test/support/tempWorkspace';

const CORPUS = path.join(REPO_ROOT, 'test', 'routing-corpus');

type Ev = { source: string; file?: string; quote: string };
const answer = (kind: FailureKind, claim: string, evidence: Ev[]) => ({ structured: { kind, claim, evidence, brief: claim, avoid: [] } });
const clone = (c: RoutingCase): RoutingCase => structuredClone(c);

/** A line of the first test file long enough to quote: what a Debugger blaming the test would cite. */
function testQuote(c: RoutingCase): Ev {
  const f = c.inputs.testFiles[0]!;
  const line =
    f.content
      .split('\n')
      .map((l) => l.trim())
      .find((l) => /expect|assert/.test(l) && l.length >= 16) ??
    f.content
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length >= 16)!;
  return { source: 'testFile', file: f.path, quote: line };
}
const outputQuote = (c: RoutingCase): Ev => ({
  source: 'testOutput',
  quote: c.inputs.testOutput
    .split('\n')
    .find((l) => l.trim().length >= 12)!
    .trim(),
});
const manifestQuote = (c: RoutingCase): Ev => ({ source: 'manifest', quote: c.facts.manifest.title });

/** Adds a finding of the checks where the Debugger reads it (diagnostics and the whole failure). */
function addCheckLine(c: RoutingCase, line: string): void {
  c.inputs.diagnostics = [line, c.inputs.diagnostics].filter(Boolean).join('\n');
  c.inputs.testOutput = `${line}\n${c.inputs.testOutput}`;
}
function addDiagnostic(c: RoutingCase, d: CodeDiagnostic): string {
  const line = `${d.file}:${d.line}:${d.column} ${d.code}: ${d.message}`;
  c.facts.diagnostics.push(d);
  addCheckLine(c, line);
  return line;
}
/** A stack frame in the first failing test case, as the runner prints it. */
function addFrame(c: RoutingCase, file: string, line: number, fn: string): string {
  const frame = `at ${fn} (/workspace/${file}:${line}:9)`;
  const failed = c.facts.tests?.cases.find((x) => x.status === 'failed');
  if (!failed || !c.facts.tests) throw new Error(`${c.id} has no failing test case to add a frame to`);
  failed.stack = `${failed.stack ?? ''}\n    ${frame}`;
  c.facts.tests.output = `${c.facts.tests.output}\n    ${frame}`;
  c.inputs.testOutput = `${c.inputs.testOutput}\n    ${frame}`;
  return frame;
}
const testDiagnostic = (c: RoutingCase, code: string, message: string): CodeDiagnostic => ({
  file: c.facts.manifest.testFiles[0]!,
  line: 4,
  column: 10,
  code,
  category: 'error',
  message,
});

interface Variant {
  family: string;
  hard: string;
  gold: FailureKind;
  fact?: RoutingCase['gold']['fact'];
  why: string;
  applies: (c: RoutingCase) => boolean;
  /** `i`: the variant's index among its family's, so a family mixes right and wrong answers by rule. */
  make: (c: RoutingCase, i: number) => void;
  limit: number;
}

const codeBase = (c: RoutingCase) => c.gold.route === 'code' && !!c.facts.tests?.cases.some((x) => x.status === 'failed');
const withFailingCase = (c: RoutingCase) => !!c.facts.tests?.cases.some((x) => x.status === 'failed');

const VARIANTS: Variant[] = [
  {
    family: 'code-looks-like-test',
    hard: 'a code bug that looks like a test bug',
    gold: 'code',
    why: 'the assertion fails because the implementation is wrong; the test matches the ticket',
    applies: codeBase,
    limit: 6,
    make: (c) => (c.answers = [answer('test', 'The test expects a value the ticket does not ask for.', [testQuote(c)])]),
  },
  {
    family: 'coder-type-error-in-test',
    hard: 'a Coder-caused type error in the test',
    gold: 'code',
    why: "the rendered test type-checked before the Coder's change; the Coder changed an API the test uses",
    applies: codeBase,
    limit: 4,
    make: (c) => {
      const line = addDiagnostic(c, testDiagnostic(c, 'TS2339', "Property 'total' does not exist on type 'PageResult'."));
      c.facts.testErrorsBeforeCoder = [];
      c.answers = [answer('test', 'The test reads a property the result type does not have.', [{ source: 'diagnostics', quote: line }])];
    },
  },
  {
    family: 'pre-existing-error',
    hard: 'a pre-existing error in the output',
    gold: 'code',
    why: "the out-of-scope error was there before the run and is not counted; the failing assertion is the code's",
    applies: codeBase,
    limit: 4,
    make: (c) => {
      c.inputs.preExisting = "src/legacy/report.ts:12:5 TS2322: Type 'string' is not assignable to type 'number'.";
      c.answers = [answer('manifest', 'The failure comes from src/legacy/report.ts, which the scope does not include.', [outputQuote(c)])];
    },
  },
  {
    family: 'frame-out-of-scope',
    hard: 'an out-of-scope cause that shows up only in a stack frame',
    gold: 'manifest',
    fact: 'outsideScopeFrame',
    // The same facts as frame-on-call-path: no guard confirms a frame alone, so these are the scope guard's known blind spot.
    why: 'the failing frame is in src/lib/dates.ts, a file the scope neither writes nor reads: the change needs it',
    applies: withFailingCase,
    limit: 6,
    make: (c, i) => {
      const frame = addFrame(c, 'src/lib/dates.ts', 17, 'formatDate');
      const blamed = i % 3 === 2;
      c.answers = [
        blamed
          ? answer('code', 'The handler returns the wrong value.', [outputQuote(c)])
          : answer('manifest', 'The failure is raised in src/lib/dates.ts, outside the scope.', [{ source: 'testOutput', quote: frame }]),
      ];
    },
  },
  {
    family: 'frame-in-read-scope',
    hard: 'an out-of-scope cause in a file the scope only reads',
    gold: 'manifest',
    why: 'the failing frame is in a file the scope may only read; the fix must write it',
    applies: (c) => withFailingCase(c) && c.facts.manifest.scope.read.length > 0,
    limit: 3,
    make: (c) => {
      const read = c.facts.manifest.scope.read[0]!.path;
      const frame = addFrame(c, read, 9, 'helper');
      c.answers = [
        answer('manifest', `The failure is raised in ${read}, which the scope only reads.`, [{ source: 'testOutput', quote: frame }]),
      ];
    },
  },
  {
    family: 'frame-on-call-path',
    hard: 'an out-of-scope frame on the call path of an in-scope bug',
    gold: 'code',
    why: 'the out-of-scope helper throws because the in-scope code passes it a bad argument: the Coder owns the fix',
    applies: codeBase,
    limit: 2,
    make: (c) => {
      const frame = addFrame(c, 'src/lib/validate.ts', 31, 'assertPositive');
      c.answers = [
        answer('manifest', 'The failure is raised in src/lib/validate.ts, outside the scope.', [{ source: 'testOutput', quote: frame }]),
      ];
    },
  },
  {
    family: 'refused-fix-out-of-scope',
    hard: 'a symbol only an out-of-scope file can provide',
    gold: 'manifest',
    fact: 'symbolNotInScope',
    why: "the language service's own fix needs src/lib/strings.ts, outside the scope",
    applies: (c) => c.facts.manifest.scope.write.length > 0,
    limit: 3,
    make: (c) => {
      const file = c.facts.manifest.scope.write[0]!.path;
      const fix = {
        file,
        code: 'TS2305',
        fixName: 'fixMissingExport',
        description: "Add export 'slugify' to 'src/lib/strings'",
        files: ['src/lib/strings.ts'],
      };
      c.facts.refusedFixes = [fix];
      const line = `${file} TS2305: the fix "${fix.description}" would change src/lib/strings.ts, outside the scope`;
      addCheckLine(c, line);
      c.answers = [
        answer('manifest', 'slugify must be exported from src/lib/strings.ts, which is outside the scope.', [
          { source: 'diagnostics', quote: line },
        ]),
      ];
    },
  },
  {
    family: 'ticket-names-missing-field',
    hard: 'a ticket naming a field that does not exist',
    gold: 'ticket',
    fact: 'unresolvedTicketSymbol',
    why: 'the ticket names Post.publishedAtUtc, which the language service cannot resolve',
    applies: () => true,
    limit: 8,
    make: (c, i) => {
      const file = c.facts.manifest.scope.write[0]?.path ?? 'src/index.ts';
      c.facts.manifest.facts.push({ file, symbol: 'Post.publishedAtUtc', signature: null });
      c.inputs.manifest = serializeManifest(c.facts.manifest);
      const misses = i % 4 === 3;
      c.answers = [
        misses
          ? answer('code', 'The implementation does not set the field the ticket asks for.', [outputQuote(c)])
          : answer('ticket', 'The ticket names Post.publishedAtUtc, which does not exist.', [
              { source: 'manifest', quote: 'Post.publishedAtUtc' },
            ]),
      ];
    },
  },
  {
    family: 'ticket-contradicts-itself',
    hard: 'a ticket whose description contradicts its acceptance criteria',
    gold: 'ticket',
    why: 'the description forbids any change of behaviour the acceptance criteria ask for: only the author can settle it',
    applies: () => true,
    limit: 3,
    make: (c) => {
      c.facts.manifest.description = `${c.facts.manifest.description} Existing behaviour must not change in any way.`;
      c.inputs.manifest = serializeManifest(c.facts.manifest);
      c.answers = [
        answer('ticket', 'The description forbids the change the acceptance criteria ask for.', [
          { source: 'manifest', quote: 'Existing behaviour must not change in any way.' },
        ]),
      ];
    },
  },
  {
    family: 'ticket-claim-on-code-bug',
    hard: 'a "ticket is wrong" claim on a plain code bug',
    gold: 'code',
    why: 'the ticket is clear and every symbol it names resolves; the implementation is wrong',
    applies: codeBase,
    limit: 2,
    make: (c) => (c.answers = [answer('ticket', 'The ticket does not say what the handler must answer.', [manifestQuote(c)])]),
  },
  {
    family: 'test-type-error-before-coder',
    hard: 'a rendered test that does not type-check against the code before the Coder',
    gold: 'test',
    fact: 'testTypeError',
    why: 'the rendered test has the same type error against the code as the ticket left it: the test plan is wrong',
    applies: codeBase,
    limit: 4,
    make: (c) => {
      const d = testDiagnostic(c, 'TS2345', "Argument of type 'string' is not assignable to parameter of type 'number'.");
      const line = addDiagnostic(c, d);
      c.facts.testErrorsBeforeCoder = [d];
      c.answers = [
        answer('test', 'The test passes a string where the declared parameter is a number.', [{ source: 'diagnostics', quote: line }]),
      ];
    },
  },
  {
    family: 'impossible-expectation',
    hard: 'a test expecting a value its subject cannot hold',
    gold: 'test',
    fact: 'testExpectsImpossibleValue',
    why: "the type probe finds the expected value impossible for the subject's declared type",
    applies: withFailingCase,
    limit: 3,
    make: (c, i) => {
      const x = {
        file: c.facts.manifest.testFiles[0]!,
        caseName: 'AC1',
        actual: 'result.status',
        expected: '"ok"',
        code: 'TS2367',
        message: "This comparison appears to be unintentional because the types 'number' and 'string' have no overlap.",
      };
      c.facts.impossibleExpectations = [x];
      const line = `${x.file} "${x.caseName}": expects ${x.actual} to equal ${x.expected}, which its declared type cannot hold (${x.code}: ${x.message})`;
      addCheckLine(c, line);
      const misses = i === 2;
      c.answers = [
        misses
          ? answer('code', 'The handler answers the wrong status.', [outputQuote(c)])
          : answer('test', 'The test expects a string status from a number field.', [{ source: 'diagnostics', quote: line }]),
      ];
    },
  },
  {
    family: 'wrong-test-plausible-failure',
    hard: 'a wrong test with a correct-looking failure',
    gold: 'test',
    why: 'the expected value contradicts the acceptance criterion, yet the failure reads like an ordinary assertion: no machine fact sees it',
    applies: codeBase,
    limit: 3,
    make: (c) => (c.answers = [answer('test', 'The expected value contradicts the acceptance criterion.', [testQuote(c)])]),
  },
  {
    family: 'retry-after-bad-quote',
    hard: 'a diagnosis rejected for a quote not in its input, then right',
    gold: 'code',
    why: 'the implementation is wrong; the first diagnosis quoted text that is not in the test output',
    applies: codeBase,
    limit: 2,
    make: (c) =>
      (c.answers = [
        answer('code', 'The handler is wrong.', [{ source: 'testOutput', quote: 'this line is not in the output at all' }]),
        ...c.answers,
      ]),
  },
  {
    family: 'no-usable-diagnosis',
    hard: 'two answers that are not diagnoses',
    gold: 'code',
    why: 'the implementation is wrong; the Debugger never gave a usable diagnosis, so the failure takes the code path',
    applies: codeBase,
    limit: 1,
    make: (c) => (c.answers = [{ text: 'I think the handler is wrong.' }, { structured: { kind: 'code' } }]),
  },
  {
    family: 'tampered-oracle',
    hard: 'code that rewrote the rendered test while it ran',
    gold: 'code',
    why: 'the code under test changed the rendered test: whatever is claimed, the Coder owns the fix',
    applies: codeBase,
    limit: 1,
    make: (c) => {
      c.facts.tampered = [{ path: c.facts.manifest.testFiles[0]!, expected: 'a'.repeat(64), actual: 'b'.repeat(64) }];
      c.answers = [answer('test', 'The test file does not match the ticket.', [testQuote(c)])];
    },
  },
];

function main(): void {
  for (const f of readdirSync(path.join(CORPUS, 'cases')).filter((n) => n.startsWith('variant-'))) rmSync(path.join(CORPUS, 'cases', f));
  const captured = loadCorpus(CORPUS);
  let n = 0;
  for (const v of VARIANTS) {
    for (const [i, base] of captured.filter(v.applies).slice(0, v.limit).entries()) {
      const c = clone(base);
      v.make(c, i);
      c.id = `variant-${v.family}-${base.id}`;
      c.origin = `hand-made from ${base.id}: ${v.hard}`;
      c.why = v.why;
      c.gold = { route: v.gold, ...(v.fact ? { fact: v.fact } : {}) };
      writeCase(CORPUS, c);
      n++;
    }
  }
  // Blobs no case names any more (a variant dropped) are removed by the capture's rewrite; none here.
  console.log(`${n} variant(s) written`);
}

main();
