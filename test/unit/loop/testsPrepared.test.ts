import assert from 'node:assert/strict';
import { startRun } from '../../../src/core';
import { fakeDeps, scripted, ticketPathOf } from '../../fakes/fakeDeps';
import { eventsOf, ofType } from './loopRig';

/**
 * The run tells the test runner to get ready before its first write (beside the language
 * service's first look), and each attempt tells it, before its parse, diagnostics and lint,
 * which tests will run and what they may load (the code files the run wrote so far, the
 * attempt's first), so that the runner can compile them meanwhile. Through startRun on the
 * fakes: BLOG-1 takes two attempts; BLOG-10's typed op writes a file before the Coder does.
 */
describe('the test runner is told what each attempt will test, before the attempt is checked', () => {
  it('BLOG-1: once before the first write, then once per attempt, with the rendered tests and the files the attempt wrote, before the tests run', async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const seen: string[] = [];
    const prepared: { files: string[]; loads: string[] }[] = [];
    const tests = rig.deps.tests;
    const run = tests.run.bind(tests);
    tests.prepare = (request, loads) => {
      seen.push('prepare');
      prepared.push({ files: [...request.files], loads: [...loads] });
    };
    tests.run = (request, signal) => {
      if (request.files.some((f) => f.startsWith('test/ticket/'))) seen.push('ticket tests');
      return run(request, signal);
    };
    const workspace = rig.deps.workspace;
    const write = workspace.writeFile.bind(workspace);
    workspace.writeFile = (file, content) => {
      if (seen.at(-1) !== 'write') seen.push('write');
      return write(file, content);
    };
    const parser = rig.deps.parser!;
    const parse = parser.parse.bind(parser);
    parser.parse = (file, content) => {
      if (seen.at(-1) !== 'parse') seen.push('parse');
      return parse(file, content);
    };
    const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
    assert.equal(r.state.status, 'passed');
    const events = await eventsOf(rig, r.runId);
    const attempts = ofType(events, 'coder.attempted').length;
    assert.equal(attempts, 2);
    assert.deepEqual(
      seen.filter((s, i) => s !== 'write' || i === seen.indexOf('write')),
      ['prepare', 'write', 'prepare', 'parse', 'ticket tests', 'prepare', 'parse', 'ticket tests'],
    );
    const written = ofType(events, 'files.written')
      .filter((e) => e.by === 'coder')
      .map((e) => e.files.map((f) => f.path).filter((f) => /\.tsx?$/.test(f)));
    assert.deepEqual(
      prepared,
      [[], ...written].map((loads) => ({ files: r.state.manifest!.testFiles, loads })),
    );
  });

  it("BLOG-10: the op's file too, after the Coder's, so that the runner compiles them all in one go", async () => {
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-10'));
    const prepared: string[][] = [];
    rig.deps.tests.prepare = (_request, loads) => {
      prepared.push([...loads]);
    };
    const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-10'), signal: new AbortController().signal });
    assert.equal(r.state.status, 'passed');
    const events = await eventsOf(rig, r.runId);
    const by = (who: string) =>
      ofType(events, 'files.written')
        .filter((e) => e.by === who)
        .flatMap((e) => e.files.map((f) => f.path));
    const coder = by('coder').filter((f) => /\.tsx?$/.test(f));
    const ops = by('op').filter((f) => /\.tsx?$/.test(f) && !r.state.manifest!.testFiles.includes(f));
    assert.ok(ops.length > 0, 'BLOG-10 has an op that writes code');
    assert.deepEqual(prepared, [[], [...coder, ...ops.filter((f) => !coder.includes(f))]]);
  });

  it('a runner whose prepare throws changes nothing of the run', async () => {
    const plain = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    const before = await startRun(plain.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
    const rig = fakeDeps('blog-api', scripted('blog-api', 'BLOG-1'));
    rig.deps.tests.prepare = () => {
      throw new Error('the runner broke its word');
    };
    const r = await startRun(rig.deps, { ticketPath: ticketPathOf('BLOG-1'), signal: new AbortController().signal });
    assert.equal(r.state.status, before.state.status);
    assert.deepEqual(
      (await eventsOf(rig, r.runId)).map((e) => e.type),
      (await eventsOf(plain, before.runId)).map((e) => e.type),
    );
  });
});
