import assert from 'node:assert/strict';
import { candidateKey } from '../../fakes/candidateKey';
import { MemoryWorkspace } from '../../fakes/memoryWorkspace';
import { RecordedTestRunner } from '../../fakes/recordedTestRunner';
import { RecordedWorld } from '../../fakes/recordedWorld';
import { NotRecordedError, Recording, RecordingFile } from '../../fakes/recording';
import { wrong } from '../../fakes/blog1Scripts';
import { pureRun } from './loopRig';

/** The fakes themselves: they answer only what a real run answered, and say so when asked anything else. */

const request = { framework: 'node:test' as const, files: ['test/ticket/BLOG-1.test.ts'], timeoutMs: 1000 };

describe('pure: the recorded fakes', () => {
  it('every recording on disk reads under its zod schema, with no path of the machine that made it', () => {
    const { file } = Recording.load('blog-api');
    assert.equal(file.workspaceRoot, '/workspace');
    assert.ok(file.entries.length > 50);
    assert.doesNotMatch(JSON.stringify(file), /\/tmp\/tr-test-|\/home\//);
  });

  it('a recording with an answer of the wrong shape is refused when read, not replayed', () => {
    const { file } = Recording.load('blog-api');
    const broken = { ...file, entries: file.entries.map((e) => (e.op === 'tests.run' ? { ...e, answer: { status: 'green' } } : e)) };
    assert.equal(RecordingFile.safeParse(broken).success, false);
  });

  it('a question no run asked fails with the recorder to run, naming the changed files', async () => {
    const world = RecordedWorld.of('blog-api');
    await world.workspace.writeFile('src/handlers/posts.ts', '// never recorded\n');
    const tests = new RecordedTestRunner(world);
    await assert.rejects(tests.run(request, new AbortController().signal), (err: unknown) => {
      assert.ok(err instanceof NotRecordedError);
      assert.match(err.message, /no recorded answer of tests\.run .*src\/handlers\/posts\.ts.*npx tsx scripts\/recordFakes\.ts/);
      return true;
    });
  });

  it('a run whose Coder writes what no run wrote ends in error with that message, never with a made-up verdict', async () => {
    const script = {
      coder: [
        { expect: { attempt: 1, promptIncludes: [] }, files: { 'src/handlers/posts.ts': `${wrong()}\n// a change never recorded\n` } },
      ],
      debugger: [],
    };
    const { state } = await pureRun('BLOG-1', { script });
    assert.equal(state.status, 'error');
    assert.match(state.finished?.reason.kind === 'error' ? state.finished.reason.message : '', /re-run npx tsx scripts\/recordFakes\.ts/);
  });

  it('the same question on the same candidate gets the recorded answer, whichever order the files were written in', async () => {
    const a = new Map([
      ['a.ts', 'x'],
      ['b.ts', 'y'],
    ]);
    const b = new Map([
      ['b.ts', 'y'],
      ['a.ts', 'x'],
    ]);
    assert.equal(candidateKey('tests.run', { files: [] }, a), candidateKey('tests.run', { files: [] }, b));
    assert.notEqual(candidateKey('tests.run', { files: [] }, a), candidateKey('tests.run', { files: [] }, new Map([['a.ts', 'x']])));
  });

  it('the answer is a copy: a caller that changes it cannot change the next one', async () => {
    const world = RecordedWorld.of('blog-api');
    await world.workspace.writeFile(
      'test/ticket/BLOG-1.test.ts',
      (await pureRun('BLOG-1')).rig.world.workspace.files.get('test/ticket/BLOG-1.test.ts')!,
    );
    await world.workspace.writeFile('src/handlers/posts.ts', wrong());
    const tests = new RecordedTestRunner(world);
    const first = await tests.run(request, new AbortController().signal);
    assert.equal(first.status, 'failed');
    first.status = 'passed';
    assert.equal((await tests.run(request, new AbortController().signal)).status, 'failed');
  });

  it('the workspace in memory: a file written back as it was is no change; a deleted one is', async () => {
    const ws = MemoryWorkspace.ofFixture('blog-api');
    const original = (await ws.readFile('src/types.ts'))!;
    await ws.writeFile('src/types.ts', 'changed');
    await ws.writeFile('src/types.ts', original);
    assert.equal(ws.candidate().size, 0);
    await ws.deleteFile('src/types.ts');
    assert.deepEqual([...ws.candidate()], [['src/types.ts', null]]);
    assert.equal(await ws.exists('src'), true);
    assert.ok((await ws.listFiles('src')).every((p) => p.startsWith('src/')));
  });
});
