import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { startRun } from '../../../src/core';
import type { RunEvent } from '../../../src/core/schema/events';
import { logEvents, withScriptedDeps } from '../../support/scenario';
import { copyFixture } from '../../support/tempWorkspace';

const TICKET = '.tickets/BLOG-5.ticket.json';
const RENDERED = 'test/ticket/BLOG-5.test.ts';

/**
 * The editor's run view asks a new run to wait, once started, until the view shows its first
 * event (RunOptions.shown). The wait may hold the run's work back, and nothing more: it cannot
 * hold up a cancel, and a view that fails or never answers cannot change what the run does.
 */
describe('a run waits for its view before its heavy work', function () {
  this.timeout(180_000);
  let ws: ReturnType<typeof copyFixture>;
  beforeEach(() => {
    ws = copyFixture();
  });
  afterEach(() => ws.dispose());

  it('nothing after run.started happens until the view says it showed it; then the run goes on and passes', async () => {
    const seen: RunEvent['type'][] = [];
    let atWait: RunEvent['type'][] | undefined;
    let afterWait: { events: RunEvent['type'][]; rendered: boolean } | undefined;
    const result = await withScriptedDeps(
      ws.root,
      TICKET,
      (deps) =>
        startRun(deps, {
          ticketPath: TICKET,
          signal: new AbortController().signal,
          shown: async () => {
            atWait = [...seen];
            // Held a while: a run that did not wait would write its rendered test meanwhile.
            await new Promise((resolve) => setTimeout(resolve, 400));
            afterWait = { events: [...seen], rendered: existsSync(path.join(ws.root, RENDERED)) };
          },
        }),
      { patch: (deps) => (deps.onEvent = (e) => seen.push(e.type)) },
    );
    assert.deepEqual(atWait, ['run.started'], 'asked once the run had started');
    assert.deepEqual(afterWait, { events: ['run.started'], rendered: false }, 'the run did nothing while its view loaded');
    assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
  });

  it('a cancel while the view loads ends the run cancelled at once, though the view never answers', async () => {
    const controller = new AbortController();
    const t = Date.now();
    const result = await withScriptedDeps(ws.root, TICKET, (deps) =>
      startRun(deps, {
        ticketPath: TICKET,
        signal: controller.signal,
        // A view that ignores the signal and never answers.
        shown: () => {
          setTimeout(() => controller.abort(), 200);
          return new Promise<void>(() => undefined);
        },
      }),
    );
    assert.ok(Date.now() - t < 30_000, 'the cancel was not held up by the view');
    assert.equal(result.state.status, 'cancelled');
    const types = logEvents(ws.root, result.runId).map((e) => e.type);
    assert.deepEqual(types, ['run.started', 'run.finished'], 'the run did no work after the cancel');
    assert.equal(existsSync(path.join(ws.root, RENDERED)), false);
  });

  it('a view that fails changes nothing: the run goes on as if it had no view', async () => {
    const result = await withScriptedDeps(ws.root, TICKET, (deps) =>
      startRun(deps, {
        ticketPath: TICKET,
        signal: new AbortController().signal,
        shown: () => Promise.reject(new Error('the webview was disposed')),
      }),
    );
    assert.equal(result.state.status, 'passed', JSON.stringify(result.state.finished));
  });
});
