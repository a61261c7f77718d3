import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { verdictLines, verdictText } from '../../../src/core/run/views/verdict';
import { cli } from '../../support/cli';
import { recorded } from '../../support/recordedRuns';

const LOG = path.join(__dirname, '..', '..', 'webview', 'fixtures', 'BLOG-1', 'events.jsonl');

/** A workspace holding one run's log, as a run leaves it: `.ticket-runner/runs/<id>/events.jsonl`. */
function logged(text: string): { log: string; dispose: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'tr-show-'));
  const runId = (JSON.parse(text.split('\n')[0]!) as { runId: string }).runId;
  const dir = path.join(base, '.ticket-runner', 'runs', runId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'events.jsonl'), text);
  return { log: path.join(dir, 'events.jsonl'), dispose: () => rmSync(base, { recursive: true, force: true }) };
}

describe('ticket-runner show: the report of a finished run', () => {
  it("says what was checked at the top, in the run view's words, before the attempts", async () => {
    const ws = logged(readFileSync(LOG, 'utf8'));
    try {
      const shown = await cli(['show', ws.log]);
      assert.equal(shown.code, 0, shown.err);
      const lines = shown.out.split('\n');
      const head = lines.indexOf('What was checked:');
      assert.ok(head > 0, shown.out);
      assert.match(lines[head - 1]!, /^Outcome: passed/);
      // The same lines as the run view's summary, word for word, then the attempts.
      const expected = verdictLines(recorded('BLOG-1').state).map((l) => `  ${verdictText(l)}`);
      assert.ok(expected.length >= 4);
      assert.deepEqual(lines.slice(head + 1, head + 1 + expected.length), expected);
      assert.ok(lines.findIndex((l) => l.startsWith('Attempt 1:')) > head + expected.length);
    } finally {
      ws.dispose();
    }
  });

  it('says "error:" once for a run that ended in an error, and "cancelled" once for a cancelled one', async () => {
    const text = readFileSync(LOG, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(text.pop()!) as Record<string, unknown>;
    for (const [finished, want] of [
      [{ outcome: 'error', reason: { kind: 'error', message: 'the disk is full' } }, 'Outcome: error: the disk is full'],
      [{ outcome: 'cancelled', reason: { kind: 'cancelled' } }, 'Outcome: cancelled'],
    ] as const) {
      const ws = logged(`${[...text, JSON.stringify({ ...last, ...finished })].join('\n')}\n`);
      try {
        const shown = await cli(['show', ws.log]);
        assert.equal(shown.code, 0, shown.err);
        assert.ok(shown.out.split('\n').includes(want), shown.out);
      } finally {
        ws.dispose();
      }
    }
  });
});
