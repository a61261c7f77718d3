/**
 * Records what the real ports answer, for the pure tier's fakes (test/fakes/). Runs a handful
 * of fixture tickets through the real pipeline on a copy of their fixture (the scenario tests'
 * wiring: the headless checks, node:test/vitest/jest in the jail, the scripted model), and
 * keeps every answer of the test runner, the language service, the linter, Tree-sitter and the
 * typed ops, keyed by the question and the candidate (test/fakes/candidateKey.ts). Paths of
 * the copy and of this package become `/workspace` and `/ticket-runner`.
 *
 *   npm run build && npx tsx scripts/recordFakes.ts
 *
 * Writes test/fakes/recorded/<fixture>.json. Run it again after a change to a fixture, to a
 * tool's adapter or to the runs below; a pure test that asks what no run asked says so.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { resolveCorrection, startRun, type RunResult } from '../src/core';
import type { PipelineDeps } from '../src/core/stages/common/context';
import { DEFAULT_GATES, type GateDeps, type GateSettings } from '../src/core/stages/common/gateConfig';
import type { ModelScript } from '../src/node/models/scripted';
import { wireNodeDeps } from '../src/node/wire';
import { disposeDeps } from '../src/node/runResources';
import { ladderScript, proseScript, repeatScript } from '../test/fakes/blog1Scripts';
import { candidateKey, candidateOf } from '../test/fakes/candidateKey';
import { fixtureFiles } from '../test/fakes/memoryWorkspace';
import { ask, type Question } from '../test/fakes/questions';
import { RECORDED_DIR, RecordingFile, type RecordedEntry } from '../test/fakes/recording';
import { copyFixture, REPO_ROOT, type FixtureName } from '../test/support/tempWorkspace';

interface RecordedRun {
  fixture: FixtureName;
  ticket: string;
  /** Another script than the fixture's own (test/fakes/blog1Scripts.ts). */
  script?: { name: string; make: () => Partial<ModelScript> };
  /** The operator's decision on the correction the run asks for. */
  decide?: 'accept' | 'reject';
  /** The end-of-ticket gates the run has (none by default), their own ports recorded too. */
  gates?: GateSettings;
}

const RUNS: RecordedRun[] = [
  { fixture: 'blog-api', ticket: 'BLOG-1' },
  { fixture: 'blog-api', ticket: 'BLOG-1', script: { name: 'the recovery ladder', make: ladderScript } },
  { fixture: 'blog-api', ticket: 'BLOG-1', script: { name: 'a disguised repeat', make: repeatScript } },
  { fixture: 'blog-api', ticket: 'BLOG-2', decide: 'accept' },
  { fixture: 'blog-api', ticket: 'BLOG-3', decide: 'reject' },
  { fixture: 'blog-api', ticket: 'BLOG-4', decide: 'accept' },
  { fixture: 'blog-api', ticket: 'BLOG-1', script: { name: 'no code on attempt 1', make: proseScript } },
  { fixture: 'blog-api', ticket: 'BLOG-5' },
  // A typed op writes a file before the Coder does (test/unit/loop/testsPrepared.test.ts).
  { fixture: 'blog-api', ticket: 'BLOG-10' },
  // The gates' stories (test/unit/loop/gates.test.ts): a repair kept, a repair put back, a
  // repair whose model fails, a tool that throws, a corrected plan from the Test Reviewer. The
  // project's whole suite, as those tests ask for it.
  { fixture: 'blog-api', ticket: 'BLOG-5', gates: { enabled: [...DEFAULT_GATES, 'build'], buildCommand: 'exit 0', projectTests: 'all' } },
  { fixture: 'blog-api', ticket: 'BLOG-6', gates: { enabled: DEFAULT_GATES, projectTests: 'all' } },
  { fixture: 'blog-api', ticket: 'BLOG-7', gates: { enabled: DEFAULT_GATES, projectTests: 'all' } },
  { fixture: 'blog-api', ticket: 'BLOG-8', gates: { enabled: DEFAULT_GATES, projectTests: 'all' } },
  { fixture: 'blog-api', ticket: 'BLOG-9', gates: { enabled: DEFAULT_GATES, projectTests: 'all' }, decide: 'accept' },
  { fixture: 'shop-esm', ticket: 'SHOP-1' },
  { fixture: 'inventory-jest', ticket: 'INV-1' },
];

/** Every string of an answer with the machine's paths replaced by stand-ins. */
function portable<T>(value: T, roots: string[]): T {
  const scratch = new RegExp(`${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[A-Za-z0-9._-]+`, 'g');
  const swap = (s: string) =>
    roots
      .reduce((t, r) => t.split(r).join('/workspace'), s)
      .split(REPO_ROOT)
      .join('/ticket-runner')
      .split(process.execPath)
      .join('node')
      .replace(scratch, '<tmp>');
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? swap(v) : v))) as T;
}

/** The copy's files the run touched, as they are now: the candidate the answers depend on. */
class Touched {
  private readonly paths = new Set<string>();
  constructor(
    private readonly root: string,
    private readonly start: ReadonlyMap<string, string>,
  ) {}
  add(p: string): void {
    this.paths.add(p);
  }
  candidate(): Map<string, string | null> {
    const now = new Map<string, string | null>();
    for (const p of this.paths) {
      let content: string | null = null;
      try {
        content = readFileSync(path.join(this.root, p), 'utf8');
      } catch {
        content = null;
      }
      now.set(p, content);
    }
    return candidateOf(this.start, now);
  }
}

/** Wraps the wired ports so that each answer is kept with its question. */
function recording(deps: PipelineDeps, touched: Touched, root: string, entries: RecordedEntry[]): PipelineDeps {
  const roots = [root, realpathSync(root)];
  const keep = async <T>(q: Question, call: () => Promise<T>, after?: (answer: T) => Promise<unknown>): Promise<T> => {
    const key = candidateKey(q.op, q.args, q.pure ? new Map() : touched.candidate());
    try {
      const answer = await call();
      entries.push({ op: q.op, key, asked: q.asked, answer: portable(after ? await after(answer) : answer, roots) });
      return answer;
    } catch (err) {
      entries.push({ op: q.op, key, asked: q.asked, error: portable(err instanceof Error ? err.message : String(err), roots) });
      throw err;
    }
  };
  const { workspace, tests, diagnostics: d, lint, parser, ops, gates } = deps;
  return {
    ...deps,
    // The fakes have no rung 4 scratch copies and no environment checks: neither answers here.
    candidates: undefined,
    environment: undefined,
    workspace: {
      ...workspace,
      readFile: (p) => workspace.readFile(p),
      exists: (p) => workspace.exists(p),
      listFiles: (p) => workspace.listFiles(p),
      fileMode: (p) => workspace.fileMode(p),
      setFileMode: (p, m) => workspace.setFileMode(p, m),
      removeEmptyFolder: (p) => workspace.removeEmptyFolder(p),
      writeFile: (p, c) => (touched.add(p), workspace.writeFile(p, c)),
      deleteFile: (p) => (touched.add(p), workspace.deleteFile(p)),
    },
    tests: { run: (r, s) => keep(ask.testsRun(r), () => tests.run(r, s)) },
    diagnostics: d && {
      check: (changed, s) => keep(ask.check(changed), () => d.check(changed, s)),
      autofix: (files, allow, s) =>
        keep(
          ask.autofix(files),
          () => d.autofix(files, allow, s),
          async (r) => {
            // What the fixes left in the files they changed, for the fake to write back.
            const writes: Record<string, string> = {};
            for (const f of r.applied.flatMap((a) => a.files)) {
              touched.add(f);
              writes[f] = (await workspace.readFile(f)) ?? '';
            }
            return { ...r, writes };
          },
        ),
      probe: d.probe && ((p, c, s, o) => keep(ask.probe(p, c, o), () => d.probe!(p, c, s, o))),
      resolveSymbol: (f, sym) => keep(ask.resolveSymbol(f, sym), () => d.resolveSymbol(f, sym)),
    },
    lint: lint && { lint: (files, s) => keep(ask.lint(files), () => lint.lint(files, s)) },
    parser: parser && {
      parse: (p, c) => keep(ask.parse(p, c), () => parser.parse(p, c)),
      shape: parser.shape && ((p, c) => keep(ask.shape(p, c), () => parser.shape!(p, c))),
    },
    ops: ops && { apply: (op, scope, s) => keep(ask.opsApply(op, scope), () => ops.apply(op, scope, s)) },
    gates: gates && recordingGates(gates, keep, entries),
  };
}

/** The gates' own ports, each answer kept with its question; the type-check's prefetch stays the real one's. */
function recordingGates(gates: GateDeps, keep: <T>(q: Question, call: () => Promise<T>) => Promise<T>, entries: RecordedEntry[]): GateDeps {
  const { typecheck, coverage, build } = gates;
  return {
    ...gates,
    typecheck: typecheck && {
      check: (s, scope) => keep(ask.typecheck(scope), () => typecheck.check(s, scope)),
      ...(typecheck.prefetch ? { prefetch: typecheck.prefetch.bind(typecheck) } : {}),
      ...(typecheck.dispose ? { dispose: typecheck.dispose.bind(typecheck) } : {}),
    },
    coverage: coverage && {
      run: (r, s) => keep(ask.coverage(r), () => coverage.run(r, s)),
      measuresAsItRuns: (framework) => {
        const q = ask.measuresAsItRuns(framework);
        const answer = coverage.measuresAsItRuns?.(framework) ?? false;
        entries.push({ op: q.op, key: candidateKey(q.op, q.args, new Map()), asked: q.asked, answer });
        return answer;
      },
    },
    build: build && { run: (command, timeoutMs, s) => keep(ask.build(command), () => build.run(command, timeoutMs, s)) },
  };
}

async function withRecordedDeps<T>(
  root: string,
  ticketPath: string,
  continuesRun: string | undefined,
  gates: GateSettings | undefined,
  touched: Touched,
  entries: RecordedEntry[],
  body: (deps: PipelineDeps) => Promise<T>,
): Promise<T> {
  const wired = await wireNodeDeps({
    workspaceRoot: root,
    model: 'scripted',
    ticketPath,
    env: {},
    continuesRun,
    ...(gates ? { gates } : {}),
  });
  try {
    return await body(recording(wired, touched, root, entries));
  } finally {
    await disposeDeps(wired);
  }
}

async function record(run: RecordedRun, entries: RecordedEntry[]): Promise<string> {
  const ws = copyFixture(run.fixture);
  const ticketPath = `.tickets/${run.ticket}.ticket.json`;
  try {
    if (run.script)
      writeFileSync(
        path.join(ws.root, '.tickets', `${run.ticket}.script.json`),
        JSON.stringify({ coder: [], debugger: [], ...run.script.make() }, null, 2),
      );
    const touched = new Touched(ws.root, fixtureFiles(run.fixture));
    const signal = new AbortController().signal;
    const first: RunResult = await withRecordedDeps(ws.root, ticketPath, undefined, run.gates, touched, entries, (deps) =>
      startRun(deps, { ticketPath, signal }),
    );
    const gates = run.gates
      ? `, gates ${run.gates.enabled.join(',')}${run.gates.buildCommand ? ` with the build "${run.gates.buildCommand}"` : ''}`
      : '';
    let said = `${run.ticket} (${run.script?.name ?? 'the fixture script'}${gates}): ${first.state.status}`;
    if (run.decide && first.state.status === 'needsOperator') {
      const decided = await withRecordedDeps(ws.root, ticketPath, first.runId, run.gates, touched, entries, (deps) =>
        resolveCorrection(deps, first.runId, { decision: run.decide!, reason: 'recorded rejection', by: 'recorder', signal }),
      );
      said += `, ${run.decide}ed: ${decided.state.status}`;
    }
    return said;
  } finally {
    ws.dispose();
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const fixtures = [...new Set(RUNS.map((r) => r.fixture))].filter((f) => !only.length || only.includes(f));
  for (const fixture of fixtures) {
    const entries: RecordedEntry[] = [];
    const runs: string[] = [];
    for (const run of RUNS.filter((r) => r.fixture === fixture)) {
      const said = await record(run, entries);
      runs.push(said);
      console.log(`${fixture}: ${said}`);
    }
    const seen = new Set<string>();
    const file = RecordingFile.parse({
      $comment:
        'Recorded by scripts/recordFakes.ts from real runs: what the real ports answered, by question and candidate. Do not edit; re-run the recorder.',
      fixture,
      workspaceRoot: '/workspace',
      runs,
      entries: entries.filter((e) => !seen.has(e.key) && seen.add(e.key)),
    });
    const text = JSON.stringify(file, null, 1) + '\n';
    for (const leak of [REPO_ROOT, tmpdir(), process.execPath])
      if (text.includes(leak)) throw new Error(`the recording of ${fixture} still holds a path of this machine (${leak})`);
    writeFileSync(path.join(RECORDED_DIR, `${fixture}.json`), text);
    console.log(`${fixture}: ${file.entries.length} answers`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
