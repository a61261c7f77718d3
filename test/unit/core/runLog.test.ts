import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CorruptLogError } from '../../../src/core/run/logCodec';
import { reduceRun } from '../../../src/core/run/reducer';
import { RunLog } from '../../../src/core/run/runLog';
import { FileRunStore } from '../../../src/node/store/fileRunStore';
import { systemClock } from '../../../src/node/store/systemClock';

const model = { provider: 'scripted' as const, model: 'scripted (test)', scripted: true };

describe('run log', () => {
  let dir: string;
  let store: FileRunStore;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tr-log-'));
    store = new FileRunStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function writeRun(runId: string): Promise<RunLog> {
    const log = new RunLog(runId, store, systemClock);
    await log.emit({
      type: 'run.started',
      ticketId: 'T-1',
      ticketPath: '.tickets/T-1.ticket.json',
      model,
      budget: { attempts: 2 },
      workspace: 'ws',
    });
    await log.emit({
      type: 'coder.attempted',
      attempt: 1,
      files: [{ path: 'a.ts', hash: await log.putBlob('export const a = 1;\n') }],
      model,
    });
    await log.emit({ type: 'run.finished', outcome: 'failed', reason: { kind: 'retryBudgetSpent', attempts: 2 }, attempts: 1 });
    return log;
  }

  it('keeps records (prompts, answers) scrubbed of secrets, and file content byte for byte', async () => {
    const secret = 'sk-canary-7f3a9c2e';
    const log = new RunLog('r0', store, systemClock, [], (t) => t.replaceAll(secret, '[redacted]'));
    const record = await log.putRecord(`the test printed ANTHROPIC_API_KEY=${secret}`);
    assert.equal(await store.getBlob('r0', record), 'the test printed ANTHROPIC_API_KEY=[redacted]');
    const file = await log.putBlob(`export const key = '${secret}';\n`);
    assert.equal(await store.getBlob('r0', file), `export const key = '${secret}';\n`, 'rollback restores what the user had');
  });

  it('appends one validated JSON line per event, with seq in order, and reduces to the run state', async () => {
    await writeRun('r1');
    const text = readFileSync(store.logPath('r1'), 'utf8');
    assert.equal(text.split('\n').filter(Boolean).length, 3);
    const { events, torn } = await store.load('r1');
    assert.equal(torn, null);
    assert.deepEqual(
      events.map((e) => e.seq),
      [0, 1, 2],
    );
    const state = reduceRun('r1', events);
    assert.equal(state.status, 'failed');
    assert.equal(state.attempts[0]?.files[0]?.path, 'a.ts');
    assert.equal(await store.getBlob('r1', state.attempts[0].files[0].hash), 'export const a = 1;\n');
  });

  it('refuses to write an invalid event', async () => {
    const log = new RunLog('r2', store, systemClock);
    await assert.rejects(log.emit({ type: 'tests.ran', attempt: 1 } as never), /result/);
    await assert.rejects(store.load('r2'), /no run "r2"/);
  });

  it('loads every whole event of a log whose last line is torn, and reports the torn line', async () => {
    await writeRun('r3');
    appendFileSync(store.logPath('r3'), '{"runId":"r3","seq":3,"ts":"2026-11-22T10:00:00.000Z","type":"tests.r');
    const { events, torn } = await store.load('r3');
    assert.equal(events.length, 3);
    assert.equal(torn?.line, 4);
    assert.match(torn?.error ?? '', /JSON/);
    // Appending after a torn line is still readable up to the tear.
    assert.equal(reduceRun('r3', events).status, 'failed');
  });

  it('treats a bad line in the middle as corruption, naming the line', async () => {
    await writeRun('r4');
    const lines = readFileSync(store.logPath('r4'), 'utf8').split('\n');
    lines[1] = '{"not":"an event"}';
    rmSync(store.logPath('r4'));
    appendFileSync(store.logPath('r4'), lines.join('\n'));
    await assert.rejects(
      store.load('r4'),
      (err: unknown) => err instanceof CorruptLogError && /line 2 is not a valid event/.test(err.message),
    );
  });

  it('refuses a log edited after the run: a second outcome appended with the next number, a line left out, a line of another run', async () => {
    await writeRun('r6');
    const lines = readFileSync(store.logPath('r6'), 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { seq: number; ts: string };
    const forged = JSON.stringify({
      runId: 'r6',
      seq: last.seq + 1,
      ts: last.ts,
      type: 'run.finished',
      outcome: 'passed',
      reason: { kind: 'testsPassed' },
      attempts: 1,
    });
    const rewrite = (ls: string[]) => {
      rmSync(store.logPath('r6'));
      appendFileSync(store.logPath('r6'), ls.join('\n') + '\n');
    };
    const refused = (line: number, why: RegExp) =>
      assert.rejects(
        store.load('r6'),
        (err: unknown) => err instanceof CorruptLogError && new RegExp(`line ${line} `).test(err.message) && why.test(err.message),
      );
    rewrite([...lines, forged]);
    await refused(4, /finishes a run that had finished already/);
    rewrite([lines[0]!, lines[2]!]);
    await refused(2, /is event 2 of the run where event 1 belongs/);
    rewrite([...lines.slice(0, 2), lines[2]!.replace('"runId":"r6"', '"runId":"r7"')]);
    await refused(3, /belongs to run r7, not r6/);
    // What the writer itself appends after a finish it can resume stays readable: a resume, then a finish.
    rewrite([...lines.slice(0, -1), lines.at(-1)!.replace('"outcome":"failed"', '"outcome":"cancelled"')]);
    const log = new RunLog('r6', store, systemClock, await store.load('r6').then((l) => l.events));
    await log.emit({ type: 'run.resumed', from: 'coder', reason: 'test', attempt: 2 });
    await log.emit({ type: 'run.finished', outcome: 'failed', reason: { kind: 'retryBudgetSpent', attempts: 2 }, attempts: 1 });
    assert.equal((await store.load('r6')).events.length, 5);
  });

  it('refuses a resume no command makes: after a run that failed or passed, or after a correction request nobody accepted', async () => {
    await writeRun('r8');
    const lines = readFileSync(store.logPath('r8'), 'utf8').trimEnd().split('\n');
    const at = (seq: number, e: object) => JSON.stringify({ runId: 'r8', seq, ts: '2026-11-27T10:00:00.000Z', ...e });
    const resumed = (seq: number) => at(seq, { type: 'run.resumed', from: 'coder', reason: 'resumed', attempt: 2 });
    const passed = (seq: number) => at(seq, { type: 'run.finished', outcome: 'passed', reason: { kind: 'testsPassed' }, attempts: 2 });
    const rewrite = (ls: string[]) => {
      rmSync(store.logPath('r8'));
      appendFileSync(store.logPath('r8'), ls.join('\n') + '\n');
    };
    const refused = (line: number, why: RegExp) =>
      assert.rejects(
        store.load('r8'),
        (err: unknown) => err instanceof CorruptLogError && new RegExp(`line ${line} `).test(err.message) && why.test(err.message),
      );
    // What a process left behind by the tests appends once the run failed: a resume, and a pass.
    rewrite([...lines, resumed(3), passed(4)]);
    await refused(4, /resumes a run that ended failed; only a cancelled run, or one stopped on a changed test runner, is resumed/);
    // A run stopped on a changed test runner is resumed once it is reinstalled (resumeRun checks the hashes first).
    const toolsChanged = lines
      .at(-1)!
      .replace(
        /"reason":\{[^}]*\}/,
        '"reason":{"kind":"judgingToolsChanged","files":[{"path":"node_modules/co/index.js","change":"modified","sha256":"ab"}]}',
      );
    assert.notEqual(toolsChanged, lines.at(-1));
    rewrite([...lines.slice(0, -1), toolsChanged, resumed(3), passed(4)]);
    assert.equal((await store.load('r8')).events.length, 5);
    const needsOperator = lines.at(-1)!.replace('"outcome":"failed"', '"outcome":"needsOperator"');
    rewrite([...lines.slice(0, -1), needsOperator, resumed(3), passed(4)]);
    await refused(4, /resumes a run that waits for a decision on its correction request, with no decision/);
    rewrite([
      ...lines.slice(0, -1),
      lines.at(-1)!.replace('"outcome":"failed"', '"outcome":"passed"'),
      at(3, { type: 'correction.accepted', requestId: 'c1', by: 'cli' }),
    ]);
    await refused(4, /decides a correction request of a run that ended passed/);
    // What accepting a correction writes stays readable.
    rewrite([
      ...lines.slice(0, -1),
      needsOperator,
      at(3, { type: 'correction.accepted', requestId: 'c1', by: 'cli' }),
      at(4, { type: 'run.resumed', from: 'manifest', reason: 'correction c1 accepted' }),
      passed(5),
    ]);
    assert.equal((await store.load('r8')).events.length, 6);
  });

  it('flushes the log to disk at each step and attempt boundary, after the boundary event is written', async () => {
    const flushed: string[] = [];
    const spy = Object.create(store) as FileRunStore;
    spy.flush = async (runId) => {
      flushed.push(
        readFileSync(store.logPath(runId), 'utf8')
          .trimEnd()
          .split('\n')
          .map((l) => (JSON.parse(l) as { type: string }).type)
          .at(-1)!,
      );
      await store.flush(runId);
    };
    const log = new RunLog('r6', spy, systemClock);
    await log.emit({
      type: 'run.started',
      ticketId: 'T-1',
      ticketPath: '.tickets/T-1.ticket.json',
      model,
      budget: { attempts: 2 },
      workspace: 'ws',
    });
    await log.emit({ type: 'coder.attempted', attempt: 1, files: [], model });
    await log.emit({ type: 'check.parsed', attempt: 1, ok: true, problems: [], durationMs: 1 });
    await log.emit({
      type: 'tests.ran',
      attempt: 1,
      result: {
        status: 'passed',
        framework: 'node:test',
        command: ['node', '--test'],
        passed: 1,
        failed: 0,
        skipped: 0,
        durationMs: 1,
        cases: [],
        output: '',
      },
    });
    await log.emit({ type: 'run.finished', outcome: 'passed', reason: { kind: 'testsPassed' }, attempts: 1 });
    assert.deepEqual(flushed, ['run.started', 'coder.attempted', 'tests.ran', 'run.finished']);
  });

  it('continues seq after a reload, so a resumed run appends in order', async () => {
    await writeRun('r5');
    const { events } = await store.load('r5');
    const log = new RunLog('r5', store, systemClock, events);
    const e = await log.emit({ type: 'run.resumed', from: 'manifest', reason: 'test' });
    assert.equal(e.seq, 3);
  });
});
