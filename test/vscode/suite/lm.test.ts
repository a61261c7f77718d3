import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../../src/core';
import { CancelledError } from '../../../src/core/errors';
import type { ModelRequest } from '../../../src/core/ports/model';
import { CODE_WITHOUT_REASONING_INSTRUCTION, jsonOnlyInstruction } from '../../../src/core/recovery/proseSuppression';
import type { ModelAdaptation, RunEvent } from '../../../src/core/schema/events';
import type { RoutingReport } from '../../../src/core/eval/report';
import { renderCoderFile } from '../../../src/core/stages/coder/coderAnswer';
import { selectLmModel } from '../../../src/vscode/lmModel';
import { MODEL_CALL_SCHEME } from '../../../src/vscode/modelCallDocuments';
import { ROUTING_REPORT_SCHEME } from '../../../src/vscode/evaluateRouting';
import type { FakeAnswer, FakeLmApi } from '../fakeLm/extension';
import { until } from '../../support/cliProcess';
import { abs, api, withSettings } from './host';

/**
 * The vscode.lm provider against chat models that the fake-lm test extension registers through
 * the editor's Language Model API (code-server 1.100: the proposed `chatProvider` API). Rungs 1 and
 * 3 are judged from the run log, as a user auditing a run would.
 */
async function fake(): Promise<FakeLmApi> {
  const ext = vscode.extensions.getExtension<FakeLmApi>('ticket-runner-tests.fake-lm');
  assert.ok(ext, 'the fake-lm test extension is loaded');
  return ext.activate();
}

const POSTS = 'src/handlers/posts.ts';
const code = (file: string) => renderCoderFile(POSTS, readFileSync(abs(`.tickets/answers/BLOG-1/${file}`), 'utf8'));
const script = () =>
  JSON.parse(readFileSync(abs('.tickets/BLOG-1.script.json'), 'utf8')) as Record<
    'debugger' | 'reviewer' | 'testReviewer',
    { structured: object }[]
  >;
/** Prose with no code and no repeated span, longer than rung 1's prose limit. */
const rambling = Array.from(
  { length: 40 },
  (_, i) => `Thought ${i + 1}: the clamp in parsePaginationParams comes before guard number ${i * 7 + 3}.`,
).join(' ');

function coderRequest(thinking: boolean, collect: ModelAdaptation[]): ModelRequest {
  return {
    role: 'coder',
    attempt: 1,
    system: 'You are the Coder.',
    messages: [{ role: 'user', content: 'Change src/handlers/posts.ts.' }],
    thinking,
    onAdapted: (a) => collect.push(a),
  };
}

describe('vscode.lm: the rungs through the Language Model API, against a fake chat provider', () => {
  it('a stream that never starts, from a provider that ignores its token, still ends when the call is aborted', async () => {
    const f = await fake();
    f.script({ coder: [{ kind: 'neverStart' }] });
    const model = await selectLmModel('fake-plain');
    assert.equal(model.info.provider, 'vscode-lm');
    assert.match(model.info.model, /^fake-lm\/fake-plain /);
    const stop = new AbortController();
    const t = Date.now();
    setTimeout(() => stop.abort(), 300);
    await assert.rejects(model.complete(coderRequest(false, []), stop.signal), CancelledError);
    assert.ok(Date.now() - t < 3000, `ended ${Date.now() - t} ms after the call started`);
    assert.equal(f.requests.length, 1, 'the call reached the provider');
  });

  it('thinking on a model with no known option: the receipt says "not available", no option is sent, and the Coder is asked to keep reasoning out', async () => {
    const f = await fake();
    f.script({ coder: [{ kind: 'text', text: code('attempt2.ts') }] });
    const model = await selectLmModel('fake-plain');
    const got: ModelAdaptation[] = [];
    const answer = await model.complete(coderRequest(true, got), new AbortController().signal);
    assert.match(answer.text, /file=src\/handlers\/posts\.ts/);
    assert.equal(got[0]?.kind, 'thinkingUnavailable');
    assert.match(got[0]?.kind === 'thinkingUnavailable' ? got[0].detail : '', /not available for fake-lm\/fake-plain/);
    assert.deepEqual(got[1], { kind: 'proseSuppressed', instruction: CODE_WITHOUT_REASONING_INSTRUCTION });
    assert.equal(f.requests[0]?.modelOptions, undefined);
    assert.ok(f.requests[0]?.system.endsWith(CODE_WITHOUT_REASONING_INSTRUCTION), 'the instruction reached the model');
  });

  it("runs BLOG-1 on the fake o4-mini: rung 1 stops a stream that never starts and one of prose, rung 3 maps thinking, the Debugger's answer is taken out of prose; all of it in the log", async function () {
    this.timeout(240_000);
    const f = await fake();
    const recorded = script();
    const answers: Record<string, FakeAnswer[]> = {
      coder: [
        { kind: 'neverStart' },
        { kind: 'text', text: `Here is the change.\n\n${code('attempt1.ts')}` },
        { kind: 'text', text: rambling, chunkChars: 100 },
        { kind: 'text', text: code('attempt2.ts') },
      ],
      // No tool call: the diagnosis comes as text between two sentences of prose.
      debugger: [
        { kind: 'text', text: `I looked at the failure.\n${JSON.stringify(recorded.debugger[0]!.structured)}\nThat is my diagnosis.` },
      ],
      reviewer: [{ kind: 'tool', name: 'review', input: recorded.reviewer[0]!.structured }],
      testReviewer: [{ kind: 'tool', name: 'test_review', input: recorded.testReviewer[0]!.structured }],
    };
    f.script(answers);
    const a = await api();
    const { startRun } = await import('../../../src/core/index.js');
    const ticketPath = '.tickets/BLOG-1.ticket.json';
    const result: RunResult = await withSettings({ model: 'vscode-lm', lmFamily: 'o4-mini' }, () =>
      a.runs.drive(vscode.workspace.workspaceFolders![0]!, ticketPath, (deps, signal) =>
        // No rung 2 retries, so a failed first attempt goes straight to rung 3; a short start deadline for rung 1.
        startRun(deps, { ticketPath, recovery: { retries: 0, startDeadlineMs: 1500 }, signal }),
      ),
    );
    try {
      assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
      assert.equal(result.state.model?.provider, 'vscode-lm');
      assert.deepEqual(f.remaining(), { coder: 0, debugger: 0, reviewer: 0, testReviewer: 0 }, 'every scripted answer was used');
      const events = readFileSync(abs(`.ticket-runner/runs/${result.runId}/events.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RunEvent);
      const rungs = events.filter((e) => e.type === 'rung.fired');
      assert.deepEqual(
        rungs.map((e) => [e.attempt, e.rung, e.trigger, e.thinking]),
        [
          [1, 1, 'noStart', true],
          [2, 3, 'verifierFailed', true],
          [2, 1, 'proseWithoutCode', false],
        ],
      );
      const called = events.filter((e): e is Extract<RunEvent, { type: 'model.called' }> => e.type === 'model.called');
      const kinds = called.map((e) => [e.role, e.attempt, e.ok, (e.adaptations ?? []).map((x) => x.kind).join('+')]);
      assert.deepEqual(kinds, [
        ['coder', 1, false, ''],
        ['coder', 1, true, 'thinkingMapped+proseSuppressed'],
        ['debugger', 1, true, 'proseSuppressed+answerExtracted'],
        ['coder', 2, false, 'thinkingMapped+proseSuppressed'],
        ['coder', 2, true, ''],
        ['reviewer', 2, true, 'proseSuppressed'],
        ['testReviewer', 2, true, 'proseSuppressed'],
      ]);
      assert.match(called[0]!.error ?? '', /^stopped: rung 1 stopped the stream \(noStart\)/);
      const mapped = called[1]!.adaptations?.[0];
      assert.deepEqual(mapped?.kind === 'thinkingMapped' && mapped.modelOptions, { reasoning_effort: 'high' });
      const extracted = called[2]!.adaptations?.[1];
      assert.deepEqual(extracted, {
        kind: 'answerExtracted',
        from: 'bareJson',
        skippedChars: 'I looked at the failure.\n'.length + '\nThat is my diagnosis.'.length,
      });
      assert.equal(result.state.attempts[0]?.diagnosis?.kind, 'code', 'the extracted diagnosis was accepted and routed');
      // What the provider got: the option, the instructions, the tool it may not be made to call.
      const seen = f.requests.map((r) => [r.role, JSON.stringify(r.modelOptions ?? null)]);
      assert.deepEqual(seen, [
        ['coder', 'null'],
        ['coder', '{"reasoning_effort":"high"}'],
        ['debugger', 'null'],
        ['coder', '{"reasoning_effort":"high"}'],
        ['coder', 'null'],
        ['reviewer', 'null'],
        ['testReviewer', 'null'],
      ]);
      assert.ok(f.requests[2]!.system.endsWith(jsonOnlyInstruction('diagnosis')));
      assert.equal(f.requests[2]!.toolMode, vscode.LanguageModelChatToolMode.Required);

      // The run view's control for a call: its whole prompt and raw answer, read-only, beside, as a preview.
      await a.panels.calls.show(result.runId, 2);
      const doc = vscode.workspace.textDocuments.find(
        (d) => d.uri.scheme === MODEL_CALL_SCHEME && d.uri.path === `/${result.runId}/call-3-debugger-attempt-1.txt`,
      );
      assert.ok(doc, "the Debugger call's record is open");
      const text = doc.getText();
      assert.match(text, /^=== call 3 of 7: debugger, attempt 1, vscode-lm fake-lm\/o4-mini \(fake-o4-mini\) ===/);
      assert.match(text, /--- system ---\n[\s\S]*--- user ---\n[\s\S]*BLOG-1/);
      assert.match(
        text,
        /--- how the provider fitted the call to its API ---\ninstruction added to the prompt: "Answer only by calling the `diagnosis` tool\.[^\n]*\nanswer taken from the text \(a bare JSON object; 47 characters of prose around it left\)/,
      );
      assert.match(text, /--- answer \(end\) ---\nI looked at the failure\./);
      const tab = vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString());
      assert.equal(tab?.isPreview, true, 'opened as a preview');
      await assert.rejects(a.panels.calls.show(result.runId, 99), /has no model call #100 \(it has 7\)/);
      // The same through the run's webview: the driver clicks the first call's control (only a browser reaches a webview's page).
      a.panels.open(result.runId);
      const first = `/${result.runId}/call-1-coder-attempt-1.txt`;
      await until(
        'the webview\'s "Prompt and answer" of call 1 to open its record',
        () => vscode.workspace.textDocuments.some((d) => d.uri.scheme === MODEL_CALL_SCHEME && d.uri.path === first),
        90_000,
      );
      const opened = vscode.workspace.textDocuments.find((d) => d.uri.path === first)!;
      assert.match(opened.getText(), /^=== call 1 of 7: coder, attempt 1, .* — failed: stopped: rung 1 stopped the stream \(noStart\)/);
    } finally {
      await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
    }
  });

  it('the Coder edits through the text editor tool, offered as a LanguageModelChatTool with a JSON schema: BLOG-12 on the 2,000-line module passes with one str_replace', async function () {
    this.timeout(240_000);
    const f = await fake();
    const recorded = JSON.parse(readFileSync(abs('.tickets/BLOG-12.script.json'), 'utf8')) as {
      coder: { text?: string; toolCalls?: { name: string; input: object }[] }[];
      reviewer: { structured: object }[];
      testReviewer: { structured: object }[];
    };
    const edit = recorded.coder[0]!.toolCalls![0]!;
    const file = 'src/content/markup.ts';
    const before = readFileSync(abs(file), 'utf8');
    f.script({
      coder: [
        { kind: 'tool', name: edit.name, input: edit.input, text: 'I will round the reading time up.' },
        { kind: 'text', text: 'readingTimeMinutes now rounds up.' },
      ],
      reviewer: [{ kind: 'tool', name: 'review', input: recorded.reviewer[0]!.structured }],
      testReviewer: [{ kind: 'tool', name: 'test_review', input: recorded.testReviewer[0]!.structured }],
    });
    const a = await api();
    const { startRun } = await import('../../../src/core/index.js');
    const ticketPath = '.tickets/BLOG-12.ticket.json';
    const result: RunResult = await withSettings({ model: 'vscode-lm', lmFamily: 'fake-plain' }, () =>
      a.runs.drive(vscode.workspace.workspaceFolders![0]!, ticketPath, (deps, signal) => startRun(deps, { ticketPath, signal })),
    );
    try {
      assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
      assert.deepEqual(f.remaining(), { coder: 0, debugger: 0, reviewer: 0, testReviewer: 0 });
      const { old_str: oldStr, new_str: newStr } = edit.input as { old_str: string; new_str: string };
      assert.equal(readFileSync(abs(file), 'utf8'), before.replace(oldStr, newStr), 'the file is the original with that one change');
      const coder = f.requests.filter((r) => r.role === 'coder');
      assert.ok(coder[0]?.tools.includes('str_replace_based_edit_tool'), 'the editor is offered');
      const schema = coder[0]?.schemas['str_replace_based_edit_tool'] as
        { type?: string; properties?: Record<string, unknown> } | undefined;
      assert.equal(schema?.type, 'object');
      assert.deepEqual(Object.keys(schema?.properties ?? {}).slice(0, 2), ['command', 'path']);
    } finally {
      await vscode.commands.executeCommand('ticketRunner.rollbackRun', result.runId, true);
    }
  });

  it("Evaluate Routing runs the routing benchmark with the editor's model: a right claim confirmed, a wrong one vetoed, the report in a read-only tab", async () => {
    const f = await fake();
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name?: unknown } | undefined)?.name === 'ticket-runner');
    assert.ok(ext, 'Ticket Runner is loaded');
    const corpus = path.join(ext.extensionPath, 'test', 'routing-corpus');
    const ids = ['blog-api-BLOG-1-a1', 'variant-code-looks-like-test-blog-api-BLOG-1-a1'];
    // Each case's recorded Debugger answer, now given by the editor's model through the diagnosis tool.
    const answers = ids.map(
      (id) =>
        (JSON.parse(readFileSync(path.join(corpus, 'cases', `${id}.json`), 'utf8')) as { answers: { structured: object }[] }).answers[0]!
          .structured,
    );
    f.script({ debugger: answers.map((input): FakeAnswer => ({ kind: 'tool', name: 'diagnosis', input })) });
    const report = await withSettings({ lmFamily: 'fake-plain' }, () =>
      vscode.commands.executeCommand<RoutingReport | undefined>('ticketRunner.evaluateRouting', { corpus, cases: ids }),
    );
    assert.ok(report, 'the command returns its report');
    assert.match(report.model, /^vscode-lm fake-lm\/fake-plain/);
    assert.deepEqual(
      report.results.map((r) => [r.id, r.gold, r.claimed, r.routed]),
      [
        ['blog-api-BLOG-1-a1', 'code', 'code', 'code'],
        ['variant-code-looks-like-test-blog-api-BLOG-1-a1', 'code', 'test', 'code'],
      ],
    );
    assert.equal(report.matrix.code.code, 2);
    assert.deepEqual(report.accuracy, { debugger: 0.5, routed: 1 });
    assert.deepEqual(f.remaining().debugger, 0, 'one call per case');
    const shown = vscode.workspace.textDocuments.find((d) => d.uri.scheme === ROUTING_REPORT_SCHEME);
    assert.ok(
      shown && /gold/i.test(shown.getText()) && shown.getText().includes('"accuracy"'),
      'the matrix and the JSON report are in the document',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
