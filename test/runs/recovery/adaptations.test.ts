import assert from 'node:assert/strict';
import { runCli } from '../../../src/cli/main';
import { ModelTransportError } from '../../../src/core/errors';
import type { ModelPort } from '../../../src/core/ports/model';
import type { ModelAdaptation } from '../../../src/core/schema/events';
import { loadScriptedModel } from '../../../src/node/models/scripted';
import { light, loadEvents, runTicket } from '../../support/rungRuns';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * A provider's receipts (`onAdapted`) reach the run's record on `model.called`, for an answer
 * and for a call that failed, and `show --prompts` prints them beside the prompt.
 */
const THINKING: ModelAdaptation = { kind: 'thinkingUnavailable', detail: 'extended thinking is not available for test/plain' };
const INSTRUCTION: ModelAdaptation = { kind: 'proseSuppressed', instruction: 'Answer only by calling the `diagnosis` tool.' };

/** The fixture's script, behind a provider that reports receipts as a vscode.lm one would. */
function adapting(root: string, fail?: 'debugger'): ModelPort {
  const scripted = loadScriptedModel(root, '.tickets/BLOG-1.ticket.json');
  return {
    info: scripted.info,
    async complete(request, signal) {
      request.onAdapted?.(request.role === 'coder' ? THINKING : INSTRUCTION);
      if (fail === request.role) throw new ModelTransportError('the provider went away', 0);
      return scripted.complete(request, signal);
    },
  };
}

describe('provider receipts on model.called', function () {
  this.timeout(60_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('every call keeps what its provider changed, and show --prompts prints it', async () => {
    const { runId, state } = await runTicket(ws.root, 'BLOG-1', { modelPort: adapting(ws.root), ...light });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    const called = (await loadEvents(ws.root, runId)).filter((e) => e.type === 'model.called');
    assert.ok(called.length >= 3);
    for (const e of called) assert.deepEqual(e.adaptations, [e.role === 'coder' ? THINKING : INSTRUCTION], `${e.role} #${e.attempt}`);
    assert.deepEqual(
      state.modelCalls.map((c) => c.adaptations?.length),
      called.map(() => 1),
    );
    const out: string[] = [];
    const code = await runCli(
      ['show', runId, '--prompts', '--workspace', ws.root],
      { out: (s) => out.push(s), err: (s) => out.push(s) },
      new AbortController().signal,
    );
    assert.equal(code, 0, out.join('\n'));
    const calls = out.join('\n').split(/^=== /m).slice(1);
    assert.match(
      calls[0]!,
      /--- how the provider fitted the call to its API ---\nthinking: extended thinking is not available for test\/plain/,
    );
    const debuggerCall = calls.find((c) => /^call \d+ of \d+: debugger/.test(c))!;
    assert.match(debuggerCall, /instruction added to the prompt: "Answer only by calling the `diagnosis` tool\."/);
  });

  it('a call that failed keeps its receipts too', async () => {
    const { runId, state } = await runTicket(ws.root, 'BLOG-1', { modelPort: adapting(ws.root, 'debugger'), ...light });
    assert.equal(state.status, 'error', JSON.stringify(state.finished));
    const failed = (await loadEvents(ws.root, runId)).find((e) => e.type === 'model.called' && !e.ok);
    assert.ok(failed && failed.type === 'model.called');
    assert.match(failed.error ?? '', /the provider went away/);
    assert.deepEqual(failed.adaptations, [INSTRUCTION]);
  });
});
