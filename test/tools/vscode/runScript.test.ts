import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ModelScript } from '../../../src/node/models/scripted/scriptSchema';
import { recordScriptText } from '../../../src/node/models/scripted/recordScript';
import { FileRunStore } from '../../../src/node/store/fileRunStore';
import { defaultScriptPath, unsavable } from '../../../src/vscode/runScript';
import { runTicket } from '../../support/rungRuns';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * Save Run as Script without its dialogs: which runs it offers, where the script goes by
 * default, and that what it writes is a script the scripted model replays to the same run.
 */
describe("Save Run as Script (the command's work)", function () {
  this.timeout(180_000);

  it("defaults to .tickets/<ID>.script.json in the run's folder and writes a script that replays the run", async () => {
    const first = copyFixture();
    const second = copyFixture();
    try {
      const { state } = await runTicket(first.root, 'BLOG-3');
      assert.equal(state.status, 'needsOperator');
      assert.equal(unsavable(state, false), undefined);
      assert.match(unsavable(state, true) ?? '', /is still going: save it as a script once it stops/);
      assert.match(unsavable({ ...state, modelCalls: [] }, false) ?? '', /made no model call: there is nothing to replay/);
      const target = defaultScriptPath(second.root, state);
      assert.equal(target, path.join(second.root, '.tickets', 'BLOG-3.script.json'));

      const store = new FileRunStore(first.root);
      const text = await recordScriptText(state, (hash) => store.getBlob(state.runId, hash));
      const script = ModelScript.parse(JSON.parse(text));
      assert.deepEqual([script.coder.length, script.debugger.length], [1, 1]);
      writeFileSync(target, text);
      const replayed = await runTicket(second.root, 'BLOG-3');
      const shape = (s: typeof state) => [
        s.status,
        s.attempts.map((a) => [a.route?.route, a.route?.verdict]),
        s.corrections.map((c) => c.request.proposal),
        s.modelCalls.map((c) => c.role),
      ];
      assert.deepEqual(shape(replayed.state), shape(state));
      assert.equal(readFileSync(target, 'utf8'), text, 'the replay reads the script and leaves it as it was');
    } finally {
      first.dispose();
      second.dispose();
    }
  });
});
