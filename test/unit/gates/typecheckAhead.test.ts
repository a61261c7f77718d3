import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import type { TypeCheckPort, TypeCheckResult } from '../../../src/core/ports/gates';
import type { GateName } from '../../../src/core/schema/gates';
import { fakeDeps, scripted, ticketPathOf } from '../../fakes/fakeDeps';
import { eventsOf, ofType } from '../loop/loopRig';

/**
 * The type-check gate's check starts as an attempt's tests start, when the attempt can still
 * pass, and is dropped when it fails. Through startRun on the fakes; whether a started check's
 * result may be taken (the workspace unchanged while it ran) is the port's, tested with the real
 * tsc in test/tools/gates/tscAhead.test.ts.
 */

/** The recorded gate answer for blog-api: tsc 5.9.3, clean. */
const CLEAN: TypeCheckResult = {
  status: 'passed',
  diagnostics: [],
  tool: { name: 'tsc', version: '5.9.3', source: 'workspace' },
  detail: "tsc 5.9.3 (the workspace's own)",
  durationMs: 1200,
};

/** A type-checker that writes down, in order, what the run asked of it, among the ticket's test runs. */
function recordingTypeCheck(seen: string[]): TypeCheckPort {
  return {
    check: async (_signal, scope) => {
      seen.push(`check ${(scope ?? []).join(',')}`);
      return CLEAN;
    },
    prefetch: async (_signal, scope) => {
      seen.push(`prefetch ${(scope ?? []).join(',')}`);
      return { drop: () => seen.push('drop') };
    },
  };
}

async function run(ticket: string, enabled: GateName[]) {
  const seen: string[] = [];
  const rig = fakeDeps('blog-api', scripted('blog-api', ticket), {
    during: async (request) => {
      if (request.files.some((f) => f.startsWith('test/ticket/'))) seen.push('ticket tests');
    },
  });
  rig.deps.gates = { enabled, typecheck: recordingTypeCheck(seen) };
  const r = await startRun(rig.deps, { ticketPath: ticketPathOf(ticket), signal: new AbortController().signal });
  return { seen, status: r.state.status, events: await eventsOf(rig, r.runId) };
}

describe('gates: the type-check starts beside the attempt that can pass', () => {
  it('BLOG-1: each attempt whose in-process checks pass starts it before its tests; the failed one drops it; the gate asks once, after the passing one', async () => {
    const { seen, status, events } = await run('BLOG-1', ['typecheck']);
    assert.equal(status, 'passed');
    assert.deepEqual(
      ofType(events, 'check.diagnosed').map((d) => d.ok),
      [true, true],
      'both attempts pass the in-process checks; the first fails its tests',
    );
    const scope = 'src/handlers/posts.ts';
    assert.deepEqual(seen, [
      `check ${scope}`,
      `prefetch ${scope}`,
      'ticket tests',
      'drop',
      `prefetch ${scope}`,
      'ticket tests',
      `check ${scope}`,
    ]);
    assert.equal(ofType(events, 'gate.ran').find((g) => g.gate === 'typecheck')?.status, 'passed');
  });

  it('without the type-check gate nothing starts ahead', async () => {
    const { seen, status } = await run('BLOG-1', ['lint']);
    assert.equal(status, 'passed');
    assert.deepEqual(
      seen.filter((s) => s !== 'ticket tests'),
      [],
    );
  });
});
