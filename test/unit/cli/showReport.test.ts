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

describe("ticket-runner show --waits: where a run's time went", () => {
  it('sums the whole run by what it waited on, in plain words, and names its longest waits', async () => {
    const ws = logged(readFileSync(LOG, 'utf8'));
    try {
      const events = readFileSync(LOG, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { ts: string; type: string });
      const totalMs = Date.parse(events.at(-1)!.ts) - Date.parse(events[0]!.ts);
      const json = await cli(['show', ws.log, '--waits', '--json']);
      assert.equal(json.code, 0, json.err);
      const waits = JSON.parse(json.out) as { totalMs: number; byWhat: { what: string; ms: number }[]; waits: { ms: number }[] };
      assert.equal(waits.totalMs, totalMs);
      assert.equal(
        waits.byWhat.reduce((n, w) => n + w.ms, 0),
        totalMs,
        'every moment of the run is counted once',
      );
      assert.equal(waits.waits.length, events.length - 1);
      // The user's words, never an event's name.
      for (const w of waits.byWhat) assert.doesNotMatch(w.what, /\w\.\w|[a-z][A-Z]/, w.what);
      assert.ok(waits.byWhat.some((w) => w.what === "the ticket's tests"));
      const shown = await cli(['show', ws.log, '--waits']);
      assert.match(shown.out, /^Where run \S+'s \d+\.\d s went, by what it waited on:\n/);
      assert.match(shown.out, /\nThe 5 longest waits:\n( +\d+\.\d s +\d+% {2}\S.*\n?){5}$/);
    } finally {
      ws.dispose();
    }
  });
});
