import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ModelPort, ModelRequest } from '../../../src/core/ports/model';
import type { Manifest } from '../../../src/core/schema/manifest';
import { CODER_SYSTEM, coderContext, coderTask, runTestsGuidance } from '../../../src/core/stages/coder/prompt';
import { DEFAULT_GATES } from '../../../src/core/stages/common/gateConfig';
import { unifiedDiff } from '../../../src/core/stages/common/diff';
import {
  coveragePlanPrompt,
  repairPrompt,
  REVIEWER_SYSTEM,
  reviewerPrompt,
  TEST_REVIEWER_SYSTEM,
  testReviewerPrompt,
} from '../../../src/core/stages/gates/prompts';
import { buildManifest } from '../../../src/core/stages/manifest/manifestBuilder';
import { materialize } from '../../../src/core/stages/materializer';
import { DEBUGGER_SYSTEM, debuggerPrompt } from '../../../src/core/stages/debugger/prompt';
import { parseTicket } from '../../../src/core/ticket/ticketLoader';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { ticketPathOf } from '../../fakes/fakeDeps';
import { pureRun } from '../loop/loopRig';

/**
 * Every role's prompt, byte for byte, against the golden files beside this test: a prompt is
 * the product's contract with the model, and a change to one must be one someone meant
 * (`UPDATE_GOLDEN=1` rewrites the files after such a change). Two sources: each prompt built
 * from a fixture ticket's manifest (BLOG-1, BLOG-12), and the requests whole runs send, which
 * the stages assemble from the run (BLOG-1 routes through the Debugger; BLOG-7's gates call
 * both reviewers and a repair).
 */

const golden = (name: string) => path.join(__dirname, `${name}.prompts.txt`);

function matchesGolden(name: string, text: string): void {
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden(name), text);
  assert.equal(text, readFileSync(golden(name), 'utf8'));
}

const section = (title: string, body: string) => `=== ${title}\n${body}`;

/** The ticket's manifest as the run builds it (without the language service's facts) and its files as they are before the run. */
async function fixtureTicket(ticket: string) {
  const workspace = MemoryWorkspace.ofFixture('blog-api');
  const ticketPath = ticketPathOf(ticket);
  const manifest: Manifest = await buildManifest({
    ticket: parseTicket(ticketPath, (await workspace.readFile(ticketPath)) ?? ''),
    ticketPath,
    workspace,
  });
  const files = [];
  for (const f of [...manifest.scope.write, ...manifest.scope.read])
    files.push({ path: f.path, content: (await workspace.readFile(f.path)) ?? '' });
  const tests = materialize(manifest.testPlan, manifest.runner.framework, {
    language: manifest.testLanguage,
    moduleKind: manifest.moduleKind,
  });
  return { manifest, files, tests };
}

async function builtPrompts(ticket: string): Promise<string> {
  const { manifest, files, tests } = await fixtureTicket(ticket);
  const [first] = files;
  const changed = first ? [{ path: first.path, content: `${first.content}// changed\n` }] : [];
  const diff = changed.map((f) => unifiedDiff({ path: f.path, before: first?.content ?? null, after: f.content })).join('\n');
  const review = { manifest, diff, files: changed, tests };
  const failure = 'tests failed: 1 passed, 1 failed\nFAIL [AC1] a case\nExpected: 1\nReceived: 2';
  const debuggerInputs = {
    manifest: JSON.stringify(manifest, null, 2),
    testFiles: tests,
    testOutput: failure,
    diagnostics: '',
    preExisting: '',
    pristine: files,
    implementation: changed,
    history: [{ attempt: 1, files: changed, failure }],
  };
  const uncovered = changed.map((f) => ({ file: f.path, lines: [{ line: 1, text: f.content.split('\n')[0] ?? '' }] }));
  const blockers = [{ file: first?.path, claim: 'reads a clamped value', evidence: 'Math.min' }];
  return (
    [
      section('coder system', CODER_SYSTEM),
      section('coder system, run-tests guidance (3 calls)', runTestsGuidance(3)),
      section('coder context', coderContext({ manifest, files, tests })),
      section('coder task', coderTask({ changes: [diff], brief: 'Check the raw value.', lastFailure: failure })),
      section('debugger system', DEBUGGER_SYSTEM),
      section('debugger', debuggerPrompt(debuggerInputs)),
      section('reviewer system', REVIEWER_SYSTEM),
      section('reviewer', reviewerPrompt(review)),
      section('test reviewer system', TEST_REVIEWER_SYSTEM),
      section('test reviewer', testReviewerPrompt({ ...review, plan: manifest.testPlan, untagged: ['AC9'] })),
      section('coverage plan', coveragePlanPrompt({ ...review, plan: manifest.testPlan, uncovered })),
      section(
        'repair',
        repairPrompt({
          manifest,
          gate: 'implementationReview',
          files: changed,
          tests,
          readOnly: tests.slice(0, 1),
          complaints: ['the guard never fires'],
          blockers,
        }),
      ),
    ].join('\n\n') + '\n'
  );
}

function requestText(r: ModelRequest): string {
  const about = [
    r.role,
    `attempt ${r.attempt}`,
    ...(r.tools?.length ? [`tools: ${r.tools.map((t) => t.name).join(', ')}`] : []),
    ...(r.structured ? [`answers: ${r.structured.name}`] : []),
  ];
  const messages = r.messages.map((m) => `--- ${m.role}${'cache' in m && m.cache ? ' (cache)' : ''}\n${m.content}`);
  return [section(about.join(', '), ''), `--- system\n${r.system}`, ...messages].join('\n');
}

function recordRequests(model: ModelPort, requests: ModelRequest[]): void {
  const complete = model.complete.bind(model);
  model.complete = (request, signal) => (requests.push(request), complete(request, signal));
}

async function sentPrompts(ticket: string, withGates: boolean): Promise<string> {
  const requests: ModelRequest[] = [];
  await pureRun(ticket, {
    // The whole suite, as the project tests' runs were recorded.
    ...(withGates ? { gates: { enabled: DEFAULT_GATES, projectTests: 'all' as const } } : {}),
    patch: (deps) => recordRequests(deps.model, requests),
  });
  return requests.map(requestText).join('\n\n') + '\n';
}

describe('prompts: every role reads the same text as before', () => {
  for (const ticket of ['BLOG-1', 'BLOG-12']) {
    it(`${ticket}: each role's prompt built from the ticket's manifest`, async () => {
      matchesGolden(`${ticket}.built`, await builtPrompts(ticket));
    });
  }

  it("BLOG-1's run: the Coder's two attempts and the Debugger between them", async () => {
    const text = await sentPrompts('BLOG-1', false);
    assert.deepEqual(text.match(/^=== \w+/gm), ['=== coder', '=== debugger', '=== coder']);
    matchesGolden('BLOG-1.run', text);
  });

  it("BLOG-7's run with the gates: the Coder, the Implementation Reviewer and the repair", async () => {
    matchesGolden('BLOG-7.run', await sentPrompts('BLOG-7', true));
  });
});
