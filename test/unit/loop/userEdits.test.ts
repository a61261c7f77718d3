import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { resumeRun } from '../../../src/core';
import { trackedWorkspace } from '../../../src/core/loop/trackedWorkspace';
import { RunLog } from '../../../src/core/run/runLog';
import { formatRunReport } from '../../../src/core/run/views/report';
import { describeEvent } from '../../../src/core/run/views/eventLines';
import { writeThroughGate } from '../../../src/core/stages/coder/writeGate';
import { mergeLines } from '../../../src/core/stages/common/userEdits';
import type { Manifest } from '../../../src/core/schema/manifest';
import type { PipelineDeps } from '../../../src/core/stages/common/context';
import { POSTS, coderWrites, right, wrong } from '../../fakes/blog1Scripts';
import { FakeClock } from '../../fakes/fakeClock';
import { memoryRunStore } from '../../fakes/memoryRunStore';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { aManifest } from '../../support/aManifest';
import { eventsOf, ofType, pureRun } from './loopRig';

/**
 * A file in scope that the user changes while a run works on it is never written over: the
 * run's write merges with the user's change when the two touch different lines, and is not
 * made when they overlap, with the three versions in the log and the report.
 */

/** The write gate's field: the handler in scope. */
const blog1Manifest = (): Manifest => aManifest({ scope: { write: [{ path: POSTS, exists: true }] } });

const hash = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The user's save of the handler between the run's read and the Coder's write, on the line right after the one the Coder's guard follows. */
const usersOverlapping = (text: string): string =>
  text.replace(
    'return { status: 200, body: getPosts({ page, perPage }) };',
    'return { status: 200, body: getPosts({ page, perPage: perPage }) }; // mine',
  );
/** The user's save of a line far from the Coder's change: the handler's last line. */
const usersApart = (text: string): string =>
  text.replace('  return { status: 200, body: post };', '  return { status: 200, body: post }; // mine');

/** Makes `edit` to the workspace's file once, when the Coder is first asked: the user saving while the model thinks. */
const userSavesDuringCoder = (edit: (text: string) => string) => (deps: PipelineDeps) => {
  const ws = deps.workspace as MemoryWorkspace;
  const model = deps.model;
  let saved = false;
  deps.model = {
    info: model.info,
    complete: async (request, signal) => {
      if (request.role === 'coder' && !saved) {
        saved = true;
        ws.files.set(POSTS, edit(ws.files.get(POSTS)!));
      }
      return model.complete(request, signal);
    },
  };
};

describe("pure: the user's change to a file in scope is never written over", () => {
  it("an edit that overlaps the Coder's is kept as the user left it, and the run stops showing the three versions", async () => {
    const original = MemoryWorkspace.ofFixture('blog-api').files.get(POSTS)!;
    const { state, rig, runId } = await pureRun('BLOG-1', {
      script: { coder: [coderWrites(1, wrong()), coderWrites(2, right())] },
      patch: userSavesDuringCoder(usersOverlapping),
    });
    assert.equal(rig.world.workspace.files.get(POSTS), usersOverlapping(original), "the user's file is as the user saved it");
    assert.equal(state.status, 'failed');
    assert.deepEqual(state.finished?.reason, { kind: 'userEdited', files: [POSTS] });
    const events = await eventsOf(rig, runId);
    const [kept] = ofType(events, 'userEdit.kept');
    assert.ok(kept, 'userEdit.kept is in the log');
    assert.equal(kept.by, 'coder');
    assert.equal(await rig.store.getBlob(runId, kept.base!), original);
    assert.equal(await rig.store.getBlob(runId, kept.yours!), usersOverlapping(original));
    assert.equal(await rig.store.getBlob(runId, kept.run!), wrong());
    assert.ok(
      !ofType(events, 'files.written').some((e) => e.by === 'coder' && e.files.some((f) => f.path === POSTS)),
      'no write of the handler is recorded',
    );
    const report = formatRunReport(state);
    assert.match(report, /you changed src\/handlers\/posts\.ts while the run worked on it/);
    assert.match(report, /yours:\n.*perPage: perPage.*\/\/ mine/);
    assert.match(report, /the run's:\n(.*\n)*.*if \(perPage > MAX_PER_PAGE\)/);
    assert.match(report, /the run started from:\n.*getPosts\(\{ page, perPage \}\) \};/);
    assert.match(describeEvent(kept)?.text ?? '', /your file is as you left it/);
  });

  it("a run stopped on the user's overlapping edit is not resumed: resume refuses it and the user's file stays as saved", async () => {
    const original = MemoryWorkspace.ofFixture('blog-api').files.get(POSTS)!;
    const { state, rig, runId } = await pureRun('BLOG-1', {
      script: { coder: [coderWrites(1, wrong()), coderWrites(2, right())] },
      patch: userSavesDuringCoder(usersOverlapping),
    });
    assert.equal(state.finished?.reason.kind, 'userEdited');
    const length = (await eventsOf(rig, runId)).length;
    // Resuming would make the run's write over the user's file: the user merges by hand and runs again.
    await assert.rejects(
      resumeRun(rig.deps, runId, { signal: new AbortController().signal, reason: 'the test tries to resume it' }),
      /ended \(failed\); only an interrupted or cancelled run can be resumed/,
    );
    assert.equal((await eventsOf(rig, runId)).length, length, 'nothing was appended to the log');
    assert.equal(rig.world.workspace.files.get(POSTS), usersOverlapping(original), "the user's file is as the user saved it");
  });

  it("an edit on other lines is merged with the Coder's write, both are in the file, and the log says so", async () => {
    const ws = MemoryWorkspace.ofFixture('blog-api');
    const original = ws.files.get(POSTS)!;
    const store = memoryRunStore(hash);
    const log = new RunLog('r1', store, new FakeClock());
    const tracked = trackedWorkspace(ws, log, hash);
    const manifest = blog1Manifest();
    assert.equal(await tracked.readFile(POSTS), original, 'the run reads the handler');
    ws.files.set(POSTS, usersApart(original));
    const { written, kept } = await writeThroughGate({ deps: { workspace: tracked }, log, manifest }, 1, [
      { path: POSTS, content: wrong() },
    ]);
    const merged = usersApart(wrong());
    assert.equal(ws.files.get(POSTS), merged, "the Coder's guard and the user's comment are both there");
    assert.deepEqual(kept, []);
    assert.equal(written[0]?.afterHash, hash(merged), 'what the run records as written is the merge');
    const [event] = ofType(log.events, 'userEdit.merged');
    assert.ok(event, 'userEdit.merged is in the log');
    assert.equal(await store.getBlob('r1', event.merged), merged);
    assert.match(describeEvent(event)?.text ?? '', /merged with yours, line by line/);
  });

  it('the next write of a file the run wrote itself goes through, and so does a file the user left alone', async () => {
    const ws = MemoryWorkspace.ofFixture('blog-api');
    const log = new RunLog('r2', memoryRunStore(hash), new FakeClock());
    const tracked = trackedWorkspace(ws, log, hash);
    const manifest = blog1Manifest();
    await tracked.readFile(POSTS);
    await writeThroughGate({ deps: { workspace: tracked }, log, manifest }, 1, [{ path: POSTS, content: wrong() }]);
    const second = await writeThroughGate({ deps: { workspace: tracked }, log, manifest }, 2, [{ path: POSTS, content: right() }]);
    assert.equal(ws.files.get(POSTS), right());
    assert.deepEqual(second.kept, []);
    assert.deepEqual(ofType(log.events, 'userEdit.merged').concat(ofType(log.events, 'userEdit.kept') as never[]), []);
  });
});

describe("pure: the line merge of the user's change and the run's", () => {
  const base = 'a\nb\nc\nd\ne\n';
  it('merges changes on lines apart, keeping every line ending', () => {
    assert.deepEqual(mergeLines(base, 'A\nb\nc\nd\ne\n', 'a\nb\nc\nd\nE\n'), { clean: true, text: 'A\nb\nc\nd\nE\n' });
    assert.deepEqual(mergeLines('a\r\nb\r\nc\r\nd', 'a\r\nB\r\nc\r\nd', 'a\r\nb\r\nc\r\nD'), { clean: true, text: 'a\r\nB\r\nc\r\nD' });
  });
  it('takes the same change made on both sides once', () => {
    assert.deepEqual(mergeLines(base, 'a\nB\nc\nd\ne\n', 'a\nB\nc\nd\ne\n'), { clean: true, text: 'a\nB\nc\nd\ne\n' });
  });
  it("takes one side's change when the other changed nothing", () => {
    assert.deepEqual(mergeLines(base, base, 'x\n'), { clean: true, text: 'x\n' });
  });
  it('refuses changes of the same lines, and of lines that touch, with each version of them', () => {
    assert.deepEqual(mergeLines(base, 'a\nYOU\nc\nd\ne\n', 'a\nRUN\nc\nd\ne\n'), {
      clean: false,
      conflicts: [{ base: 'b\n', yours: 'YOU\n', run: 'RUN\n' }],
    });
    assert.equal(mergeLines(base, 'a\nB\nc\nd\ne\n', 'a\nb\nC\nd\ne\n').clean, false, 'neighbouring lines');
    assert.equal(mergeLines(base, 'a\nyou\nb\nc\nd\ne\n', 'a\nrun\nb\nc\nd\ne\n').clean, false, 'two insertions at one place');
  });
});

describe("pure: the user's saves outside the run, seen by its test commands", () => {
  it('are logged once each, the run going on as it would, and every view names them as kept', async () => {
    // What the tests' copy of the workspace found after a command: the user saved the README and a new file meanwhile.
    const seen = [
      [
        { path: 'README.md', change: 'modified', by: 'user' },
        { path: 'NOTES.md', change: 'created', by: 'user' },
      ],
      [{ path: 'README.md', change: 'modified', by: 'user' }],
    ] as const;
    let asked = 0;
    const { state, rig, runId } = await pureRun('BLOG-1', {
      patch: (deps) => {
        deps.tests.userSavesSeen = () => [...(seen[asked++] ?? [])];
      },
    });
    assert.equal(state.status, 'passed', JSON.stringify(state.finished));
    assert.ok(asked >= 2, 'asked after the baselines and after the checks');
    const events = ofType(await eventsOf(rig, runId), 'userSaves.kept');
    assert.deepEqual(
      events.map((e) => e.files.map((f) => f.path)),
      [['README.md', 'NOTES.md'], ['README.md']],
    );
    assert.deepEqual(state.userSaves, ['README.md', 'NOTES.md']);
    assert.match(formatRunReport(state), /Saved by you while the tests ran, kept as saved: README\.md, NOTES\.md/);
    assert.equal(
      describeEvent(events[0]!)?.text,
      "you saved README.md, NOTES.md while the run's tests ran: kept as you saved them, and nothing of the run put them back",
    );
  });
});
