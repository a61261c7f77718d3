import assert from 'node:assert/strict';
import { measureEventLoopStall, STALL_TARGET_MS } from '../../../bench/eventLoopStall';

/** Whole runs at most: one is enough on a quiet machine. */
const TRIES = 3;

/**
 * The run's own thread answers through a whole run of BLOG-1 (the scripted model, the default
 * gates, the sandbox as the machine allows): its longest event-loop stall is at most 250 ms, the
 * bound past which an editor window whose extension host ran it feels frozen. The language
 * service, Tree-sitter, the sandbox runtime and V8 coverage's parse run in worker threads; work
 * of theirs back on this thread stalls it for 300 ms to seconds.
 *
 * The best of up to three runs: the machine is shared, and another process's load only lengthens
 * a stall (the thread waits for a core as well as for its own work; at a load of 10 on two cores
 * an 80 ms spawn was seen to stall 600 ms). A stall the code makes is in every run, so the
 * shortest of three is the code's own figure, without passing a regression.
 */
describe('the event loop of the process that runs a ticket', function () {
  this.timeout(TRIES * 150_000);

  it(`never stalls for more than ${STALL_TARGET_MS} ms through a whole run of BLOG-1 (best of ${TRIES} runs)`, async () => {
    const seen: string[] = [];
    let best = Infinity;
    for (let i = 0; i < TRIES && best > STALL_TARGET_MS; i++) {
      const { tickets, worstMs } = await measureEventLoopStall(['BLOG-1']);
      const run = tickets[0]!;
      assert.equal(run.outcome, 'passed (testsPassed)', 'the run itself passes');
      seen.push(`${worstMs} ms (during ${run.longest[0]?.during ?? 'nothing'})`);
      best = Math.min(best, worstMs);
    }
    console.log(`      longest stall of each run: ${seen.join(', ')}`);
    assert.ok(best <= STALL_TARGET_MS, `every run stalled over ${STALL_TARGET_MS} ms: ${seen.join(', ')}`);
  });
});
