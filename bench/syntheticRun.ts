import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunStorePort } from '../src/core/ports/runStore';
import { reduceRun } from '../src/core/run/reducer';
import { RunLog } from '../src/core/run/runLog';
import type { RunEvent } from '../src/core/schema/events';
import { parseHostMessage, type HostMessage } from '../src/shared/protocol';
import { attemptBlobHashes, quoteLocations, timelineOf } from '../src/core/run/views/timeline';

/** Runs in memory: the synthetic log is validated event by event like a real one, and never touches disk. */
class MemoryStore implements RunStorePort {
  readonly events: RunEvent[] = [];
  readonly blobs = new Map<string, string>();
  append(_runId: string, event: RunEvent): Promise<void> {
    this.events.push(event);
    return Promise.resolve();
  }
  load(): Promise<{ events: RunEvent[]; torn: null }> {
    return Promise.resolve({ events: this.events, torn: null });
  }
  putBlob(_runId: string, content: string): Promise<string> {
    const hash = createHash('sha256').update(content).digest('hex');
    this.blobs.set(hash, content);
    return Promise.resolve(hash);
  }
  getBlob(_runId: string, hash: string): Promise<string> {
    const blob = this.blobs.get(hash);
    return blob === undefined ? Promise.reject(new Error(`no blob ${hash}`)) : Promise.resolve(blob);
  }
  listRuns(): Promise<string[]> {
    return Promise.resolve(['bench-500']);
  }
  deleteRun(): Promise<void> {
    return Promise.resolve();
  }
  logPath(): string {
    return 'memory:bench-500';
  }
}

const FILE = 'src/handlers/posts.ts';
const TEST = 'test/ticket/BLOG-1.test.ts';
const QUOTE = 'const { page, perPage } = parsePaginationParams(req.query);';

/**
 * The host's `run/state` message for a run of `attempts` attempts, built from an event log
 * through the same reducer and projections the extension uses. Every attempt but the last
 * fails a test and gets a diagnosis with a quote and a code route; each changes the handler,
 * so every attempt has a diff to render.
 */
export async function syntheticRunState(attempts: number, repoRoot: string): Promise<Extract<HostMessage, { type: 'run/state' }>> {
  const fixture = path.join(repoRoot, 'test', 'fixtures', 'blog-api');
  const answers = path.join(fixture, '.tickets', 'answers', 'BLOG-1');
  const bases = [readFileSync(path.join(answers, 'attempt1.ts'), 'utf8'), readFileSync(path.join(answers, 'attempt2.ts'), 'utf8')];
  const store = new MemoryStore();
  let tick = Date.UTC(2026, 0, 1);
  const clock = { now: () => new Date((tick += 250)), newRunId: () => 'bench-500' };
  const log = new RunLog('bench-500', store, clock);
  const model = { provider: 'scripted' as const, model: 'scripted (bench)', scripted: true };
  const usage = {
    ok: true,
    inputTokens: 4000,
    outputTokens: 900,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0.025,
    latencyMs: 0,
    retries: 0,
  };
  await log.emit({
    type: 'run.started',
    ticketId: 'BLOG-1',
    ticketPath: '.tickets/BLOG-1.ticket.json',
    model,
    budget: { attempts },
    workspace: 'blog-api',
  });
  await log.emit({
    type: 'tests.materialized',
    framework: 'node:test',
    files: [{ path: TEST, hash: await log.putBlob('// the rendered test\n') }],
  });
  let before = await log.putBlob(readFileSync(path.join(fixture, FILE), 'utf8'));
  for (let n = 1; n <= attempts; n++) {
    const last = n === attempts;
    const content = bases[n % 2]!.replace(
      'export function listPosts',
      `// attempt ${n}: ${last ? 'the raw value' : 'a guard'}\nexport function listPosts`,
    );
    const hash = await log.putBlob(content);
    await log.emit({ type: 'model.called', role: 'coder', attempt: n, model, ...usage });
    await log.emit({
      type: 'coder.attempted',
      attempt: n,
      brief: n > 1 ? `Check the raw query value before parsing (attempt ${n}).` : undefined,
      files: [{ path: FILE, hash }],
      model,
    });
    await log.emit({ type: 'files.written', attempt: n, by: 'coder', files: [{ path: FILE, before, after: hash }] });
    before = hash;
    await log.emit({ type: 'check.parsed', attempt: n, ok: true, problems: [], durationMs: 4 });
    const diagnostics =
      n % 3 === 0
        ? [{ file: FILE, line: 9, column: 7, code: 'TS2304', category: 'error' as const, message: "Cannot find name 'MAX_PER_PAGE'." }]
        : [];
    await log.emit({
      type: 'check.diagnosed',
      preExisting: [],
      attempt: n,
      ok: diagnostics.length === 0,
      checkedFiles: [FILE, TEST, 'src/index.ts'],
      diagnostics,
      durationMs: 140,
    });
    await log.emit({ type: 'check.linted', preExisting: [], attempt: n, status: 'passed', problems: [] });
    const failed = {
      name: 'BLOG-1 listPosts perPage limit > [AC1] rejects perPage above 100',
      file: TEST,
      status: 'failed' as const,
      message: 'Expected values to be strictly equal:\n\n200 !== 400\n',
      expected: '400',
      actual: '200',
    };
    const passed = { name: 'BLOG-1 listPosts perPage limit > [AC2] accepts perPage of exactly 100', file: TEST, status: 'passed' as const };
    await log.emit({
      type: 'tests.ran',
      attempt: n,
      result: {
        status: last ? 'passed' : 'failed',
        framework: 'node:test',
        command: ['node', '--test', TEST],
        passed: last ? 2 : 1,
        failed: last ? 0 : 1,
        skipped: 0,
        durationMs: 650,
        cases: last ? [{ ...passed }, { ...passed, name: failed.name }] : [failed, passed],
        output: last ? '' : `✖ ${failed.name}\n  AssertionError: ${failed.message}`,
      },
    });
    if (last) break;
    await log.emit({ type: 'model.called', role: 'debugger', attempt: n, model, ...usage });
    await log.emit({
      type: 'debugger.diagnosed',
      attempt: n,
      diagnosis: {
        kind: 'code',
        claim: `Attempt ${n} guards the clamped perPage, which parsePaginationParams has already capped at 100, so the guard never fires.`,
        evidence: [
          { source: 'implementation', file: FILE, quote: QUOTE },
          { source: 'testOutput', quote: '200 !== 400' },
        ],
        brief: 'Check req.query.perPage against MAX_PER_PAGE before parsing; keep the parsed values for the page.',
        avoid: ['guarding the clamped perPage value'],
      },
      rejected: [],
    });
    await log.emit({
      type: 'router.routed',
      attempt: n,
      claimed: 'code',
      route: 'code',
      guard: { verdict: 'notNeeded', detail: 'a code route needs no machine fact' },
    });
  }
  await log.emit({ type: 'run.finished', outcome: 'passed', reason: { kind: 'testsPassed' }, attempts });

  const state = reduceRun('bench-500', log.events);
  const blob = (h: string) => Promise.resolve(store.blobs.get(h) ?? null);
  const blobs: Record<string, string> = {};
  for (const h of attemptBlobHashes(state)) blobs[h] = store.blobs.get(h)!;
  const message = {
    type: 'run/state' as const,
    state,
    timeline: timelineOf(log.events),
    blobs,
    quotes: await quoteLocations(state, blob, () => Promise.resolve(null)),
    mode: 'live' as const,
    position: { seq: log.events.length - 1, total: log.events.length },
    canDecide: false,
  };
  // The webview refuses an invalid message and would never render: fail here, with the reason.
  const parsed = parseHostMessage(message);
  if (!parsed.ok) throw new Error(`the synthetic run/state message is invalid: ${parsed.error}`);
  return message;
}
