import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import { fakeDeps, scripted, ticketPathOf } from '../../fakes/fakeDeps';
import { eventsOf } from './loopRig';

/**
 * The parser is told, as the baseline starts, which files it will parse, so that its start is
 * not paid for after the first write. Through startRun on the fakes (BLOG-1).
 */
describe('the parser is warmed for the files in scope before the run waits on it', () => {
  it('once, before the baseline is recorded and before the first parse, with the code files in scope and the rendered tests', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const seen: string[] = [];
    const parser = rig.deps.parser!;
    const parse = parser.parse.bind(parser);
    parser.parse = (file, content) => {
      if (seen.at(-1) !== 'parse') seen.push('parse');
      return parse(file, content);
    };
    parser.warm = (paths) => {
      seen.push(`warm ${paths.join(' ')}`);
      return Promise.resolve();
    };
    const emit = rig.deps.onEvent;
    rig.deps.onEvent = (e) => {
      if (e.type === 'baseline.recorded') seen.push('baseline');
      emit?.(e);
    };
    const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
    assert.equal(r.state.status, 'passed');
    assert.deepEqual(seen.slice(0, 3), ['warm src/handlers/posts.ts test/ticket/BLOG-1.test.ts', 'baseline', 'parse']);
    assert.equal(seen.filter((s) => s.startsWith('warm')).length, 1);
  });

  it('a parser whose warm-up throws or fails changes nothing of the run', async () => {
    const plain = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const before = await startRun(plain.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
    for (const warm of [
      () => Promise.reject(new Error('no grammar here')),
      (): Promise<void> => {
        throw new Error('the parser broke its word');
      },
    ]) {
      const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
      rig.deps.parser!.warm = warm;
      const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
      assert.equal(r.state.status, before.state.status);
      assert.deepEqual(
        (await eventsOf(rig, r.runId)).map((e) => e.type),
        (await eventsOf(plain, before.runId)).map((e) => e.type),
      );
    }
  });
});
