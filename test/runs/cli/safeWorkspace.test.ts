import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXIT, runCli } from '../../../src/cli/main';
import { renderCoderFile } from '../../../src/core/stages/coder/coderAnswer';
import type { RunEvent } from '../../../src/core/schema/events';
import { FakeAnthropic, textReply } from '../../support/fakeAnthropic';
import {
  filesUnder,
  hostileEslintConfig,
  hostilePrelude,
  LINT_CANARY,
  listener,
  makeAnswerHostile,
  outsidePaths,
  runBuiltCli,
  type LintConfigSaw,
} from '../../support/hostileCode';
import { loadEvents } from '../../support/rungRuns';
import { copyFixture } from '../../support/tempWorkspace';

/**
 * The run's code under test is hostile: it prints its environment, reads the parent's, writes
 * outside the workspace, into its own rendered test, the ticket and the run store, reads a key
 * file, and dials out. Driven through the CLI on fixture copies; what the attack achieved is
 * read from the run's own log.
 */

const CANARY = 'tr-canary-SECRET-9f8e7d6c5b4a3210';
const API_KEY = 'sk-ant-api03-CANARY-run-key-0123456789abcdef';
const RENDERED = 'test/ticket/BLOG-5.test.ts';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, new AbortController().signal);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const PAGINATION = 'src/utils/pagination.ts';
const pristine = (rel: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'blog-api', rel), 'utf8');

/** The hostile prelude's writes inside the workspace were found after the test run, put back, and are on record. */
function assertPutBack(root: string, events: RunEvent[], more: { path: string; change: string; restored: boolean }[] = []): void {
  assert.ok(!existsSync(path.join(root, 'src', 'planted.ts')));
  assert.equal(readFileSync(path.join(root, PAGINATION), 'utf8'), pristine(PAGINATION));
  assert.equal(readFileSync(path.join(root, 'README.md'), 'utf8'), pristine('README.md'));
  const first = events.find((e) => e.type === 'tests.ran');
  assert.ok(first?.type === 'tests.ran');
  assert.deepEqual(
    first.result.sideEffects,
    [
      { path: 'README.md', change: 'deleted', restored: true },
      { path: 'src/planted.ts', change: 'created', restored: true },
      { path: PAGINATION, change: 'modified', restored: true },
      ...more,
    ].sort((a, b) => a.path.localeCompare(b.path)),
  );
}

/** The output of every test run of a run, as its log holds it. */
const testOutputs = (events: RunEvent[]) => events.flatMap((e) => (e.type === 'tests.ran' ? [e.result.output] : [])).join('\n');

function withEnv(vars: Record<string, string>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

describe('a safe workspace: hostile code under test', function () {
  this.timeout(120_000);
  let ws: ReturnType<typeof copyFixture>;
  let net: Awaited<ReturnType<typeof listener>>;
  let secretFile: string;

  beforeEach(async () => {
    ws = copyFixture();
    net = await listener();
    // A key in a usual place of the user's home; the sandbox hides ~/.ssh.
    const home = path.join(ws.root, '..', 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    secretFile = path.join(home, '.ssh', 'id_rsa');
    writeFileSync(secretFile, 'PRIVATE-KEY-MATERIAL-abcdef0123456789');
  });
  afterEach(async () => {
    ws.dispose();
    await new Promise((resolve) => net.server.close(resolve));
  });

  it('in the sandbox it cannot write outside the workspace, its own test, the ticket or the run store, read ~/.ssh, or reach the network', async () => {
    makeAnswerHostile(ws.root, 'BLOG-5/attempt1.ts', hostilePrelude({ secretFile, port: net.port, renderedTest: RENDERED }));
    const restore = withEnv({
      HOME: path.dirname(path.dirname(secretFile)),
      TR_VISIBLE_TOKEN: 'passed-on-purpose-123',
      TR_HIDDEN_TOKEN: 'never-passed-456789',
    });
    let r: Awaited<ReturnType<typeof cli>>;
    try {
      r = await cli([
        'run',
        '.tickets/BLOG-5.ticket.json',
        '--model',
        'scripted',
        '--workspace',
        ws.root,
        '--json',
        '--gates',
        'none',
        '--require-sandbox',
        '--pass-env',
        'TR_VISIBLE_TOKEN',
      ]);
    } finally {
      restore();
    }
    assert.equal(r.code, EXIT.passed, r.err);
    assert.equal(
      r.err
        .split('\n')
        .filter((l) => l.includes('sandbox:'))
        .join('\n'),
      '  sandbox: on (bubblewrap)',
      'said once, in the progress output',
    );
    const { runId } = JSON.parse(r.out) as { runId: string };
    const events = await loadEvents(ws.root, runId);
    const output = testOutputs(events);
    assert.match(output, /HOSTILE write outside: refused \(EROFS\)/, 'the hostile code ran, and was refused');
    assert.match(output, /HOSTILE write rendered test: refused \(EROFS\)/);
    assert.match(output, /HOSTILE write ticket: refused \(EROFS\)/);
    // The copy the tests run in holds no run store: there is none to write.
    assert.match(output, /HOSTILE write run store: refused \((EROFS|ENOENT)\)/);
    assert.match(output, /HOSTILE read secret file: refused \(ENOENT\)/);
    // The sandbox has a network of its own: the host's loopback server is not there.
    assert.match(output, /HOSTILE socket: refused \((ECONNREFUSED|ENETUNREACH)\)/);
    assert.match(output, /HOSTILE parent env: refused/, "the parent's environment is out of sight");
    assert.ok(!existsSync(path.join(ws.root, '..', 'escaped.txt')));
    assert.ok(!readFileSync(path.join(ws.root, RENDERED), 'utf8').includes('tampered'));
    assert.ok(!existsSync(path.join(ws.root, '.ticket-runner', 'planted.txt')));
    assert.equal(net.connections(), 0);
    // Inside the workspace it could write: each change is found after the run, put back, and reported.
    assert.match(output, /HOSTILE plant in workspace: done/);
    assertPutBack(ws.root, events);
    // The environment: a private HOME, the variable passed by name (scrubbed when printed), not the other.
    const env = /HOSTILE env: done (\{.*\})/.exec(output)?.[1];
    assert.ok(env, output);
    const seen = JSON.parse(env) as Record<string, string>;
    assert.notEqual(seen['HOME'], path.dirname(path.dirname(secretFile)));
    assert.equal(seen['TR_VISIBLE_TOKEN'], '[redacted]', 'passed by name, and its value still never logged');
    assert.equal(seen['TR_HIDDEN_TOKEN'], undefined);
    const started = events[0];
    assert.ok(started?.type === 'run.started');
    assert.deepEqual(started.sandbox, { on: true, detail: 'bubblewrap' });
    assert.match((await cli(['show', runId, '--workspace', ws.root])).out, /^sandbox: on \(bubblewrap\)$/m, 'the report says it');
  });

  it('a canary key in the environment reaches neither the run store, the CLI output, nor any request to the model', async () => {
    const fake = await FakeAnthropic.start();
    // Attempt 1 fails its test (the clamp hides the guard), so the Debugger gets the output in its prompt.
    const answer = readFileSync(path.join(ws.root, '.tickets', 'answers', 'BLOG-1', 'attempt1.ts'), 'utf8');
    fake.enqueue(
      textReply(
        renderCoderFile(
          'src/handlers/posts.ts',
          hostilePrelude({ secretFile, port: net.port, renderedTest: 'test/ticket/BLOG-1.test.ts' }) + answer,
        ),
      ),
    );
    const restore = withEnv({ TR_CANARY_SECRET: CANARY, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.baseURL });
    let r: Awaited<ReturnType<typeof cli>>;
    try {
      r = await cli(['run', '.tickets/BLOG-1.ticket.json', '--workspace', ws.root, '--model', 'anthropic', '--gates', 'none', '--json']);
    } finally {
      restore();
      await fake.close();
    }
    const requests = JSON.stringify(fake.requests.map((q) => q.body));
    assert.ok(fake.requests.length >= 2, 'the Coder and then the Debugger were asked');
    assert.match(requests, /HOSTILE env: done/, 'the test output, with the printed environment, reached a prompt');
    for (const secret of [CANARY, API_KEY]) {
      assert.ok(!requests.includes(secret), 'not in any request');
      assert.ok(!r.out.includes(secret) && !r.err.includes(secret), 'not in the CLI output');
      const leaked = filesUnder(path.join(ws.root, '.ticket-runner')).filter((f) => f.text.includes(secret));
      assert.deepEqual(
        leaked.map((f) => f.file),
        [],
        'not in .ticket-runner/',
      );
    }
  });

  it('an ESLint config that writes outside the workspace and dumps its environment runs in the sandbox, sees no key, and the run still gets the right lint result', async () => {
    const outside = outsidePaths(ws.root);
    writeFileSync(path.join(ws.root, 'eslint.config.mjs'), hostileEslintConfig(outside));
    const restore = withEnv({ ANTHROPIC_API_KEY: LINT_CANARY });
    let r: Awaited<ReturnType<typeof cli>>;
    let escaped: string[];
    try {
      r = await cli([
        'run',
        '.tickets/BLOG-5.ticket.json',
        '--model',
        'scripted',
        '--workspace',
        ws.root,
        '--json',
        '--gates',
        'lint',
        '--require-sandbox',
      ]);
    } finally {
      restore();
      // Looked at before they are removed: a file written out there must fail the test, not vanish.
      escaped = outside.filter((f) => existsSync(f));
      for (const f of escaped) rmSync(f);
    }
    assert.deepEqual(escaped, [], 'written from the ESLint config, outside the workspace');
    assert.equal(r.code, EXIT.passed, r.err);
    const { runId } = JSON.parse(r.out) as { runId: string };
    const events = await loadEvents(ws.root, runId);
    const linted = events.flatMap((e) => (e.type === 'check.linted' ? [e] : []));
    assert.ok(linted.length > 0);
    const saw: LintConfigSaw[] = [];
    for (const e of linted) {
      // The config's rules: a max-lines warning on each linted file, its own report of what it
      // saw at line 1 of each, and nothing else.
      assert.equal(e.status, 'passed', e.detail);
      assert.ok(e.problems.length > 0);
      for (const p of e.problems) {
        if (p.rule === 'hostile/seen') {
          assert.deepEqual([p.severity, p.line], ['warning', 1]);
          saw.push(JSON.parse(p.message) as LintConfigSaw);
        } else assert.deepEqual([p.rule, p.severity, p.line], ['max-lines', 'warning', 2]);
      }
    }
    assert.ok(saw.length > 0, 'the config said what it saw');
    const gate = events.find((e) => e.type === 'gate.ran' && e.gate === 'lint');
    assert.ok(gate?.type === 'gate.ran' && gate.status === 'passed', JSON.stringify(gate));
    // Read from its report, not from the file it wrote in the workspace: the baseline's test run
    // may be under way as the config loads, and then puts that file back (removes it).
    for (const { env, tries } of saw) {
      assert.equal(env['ANTHROPIC_API_KEY'], undefined, 'not in what the config saw');
      assert.ok(!JSON.stringify(env).includes(LINT_CANARY), 'not in what the config saw');
      // What the config itself saw of each write: refused, by the sandbox's own error.
      assert.deepEqual(Object.keys(tries).sort(), [...outside].sort());
      for (const [file, outcome] of Object.entries(tries)) assert.match(outcome, /^E[A-Z]+$/, `${file}: ${outcome}`);
    }
    assert.ok(!r.out.includes(LINT_CANARY) && !r.err.includes(LINT_CANARY), 'not in the CLI output');
    assert.deepEqual(
      filesUnder(path.join(ws.root, '.ticket-runner'))
        .filter((f) => f.text.includes(LINT_CANARY))
        .map((f) => f.file),
      [],
      'not in .ticket-runner/',
    );
  });

  it('a scope file that is a symbolic link out of the workspace is refused, in one line, and what it points to is untouched', async () => {
    const scopeFile = path.join(ws.root, 'src', 'format', 'postSummary.ts');
    const target = path.join(ws.root, '..', 'outside-postSummary.ts');
    writeFileSync(target, readFileSync(scopeFile, 'utf8'));
    const before = readFileSync(target, 'utf8');
    rmSync(scopeFile);
    symlinkSync(target, scopeFile);
    const r = await cli(['run', '.tickets/BLOG-5.ticket.json', '--model', 'scripted', '--workspace', ws.root, '--gates', 'none']);
    assert.equal(r.code, EXIT.error);
    assert.match(r.err, /"src\/format\/postSummary\.ts" resolves outside the workspace \(through a symbolic link\)/);
    assert.equal(readFileSync(target, 'utf8'), before);
  });

  it('without bubblewrap the run goes on and says "sandbox: off (reason)" once; --require-sandbox makes it an error', async function () {
    const dist = path.join(__dirname, '..', '..', '..', 'dist', 'cli.js');
    assert.ok(existsSync(dist), 'needs a build: npm run build');
    // No PATH: bwrap cannot be found, as on a machine without it. The tests run node by its path.
    const env = { ...process.env, PATH: path.join(ws.root, 'no-such-bin') };
    makeAnswerHostile(ws.root, 'BLOG-5/attempt1.ts', hostilePrelude({ secretFile, port: net.port, renderedTest: RENDERED }));
    // One attempt, and a Debugger answer for its failure: with no sandbox the writes land, and the oracle fails the attempt.
    const scriptFile = path.join(ws.root, '.tickets', 'BLOG-5.script.json');
    const script = JSON.parse(readFileSync(scriptFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      scriptFile,
      JSON.stringify({
        ...script,
        debugger: [
          {
            structured: {
              kind: 'code',
              claim: 'The code writes its own test and the ticket.',
              evidence: [{ source: 'testOutput', quote: 'changed during the attempt' }],
              brief: 'Do not write the tests or the ticket.',
            },
          },
        ],
      }),
    );
    const off = await runBuiltCli(
      ['run', '.tickets/BLOG-5.ticket.json', '--model', 'scripted', '--workspace', ws.root, '--gates', 'none', '--attempts', '1', '--json'],
      env,
    );
    assert.equal(off.code, EXIT.failed, off.err);
    // With no sandbox the hostile code can write its own test and the ticket: both are put back after the test run, and the attempt cannot pass.
    const { runId, state } = JSON.parse(off.out) as { runId: string; state: { attempts: { tampered: { path: string }[] }[] } };
    assert.deepEqual(state.attempts[0]!.tampered.map((t) => t.path).sort(), ['.tickets/BLOG-5.ticket.json', RENDERED]);
    const events = await loadEvents(ws.root, runId);
    assert.match(testOutputs(events), /HOSTILE write rendered test: done/);
    assert.ok(!readFileSync(path.join(ws.root, RENDERED), 'utf8').includes('tampered'));
    assert.equal(readFileSync(path.join(ws.root, '.tickets', 'BLOG-5.ticket.json'), 'utf8'), pristine('.tickets/BLOG-5.ticket.json'));
    assertPutBack(ws.root, events, [
      { path: '.tickets/BLOG-5.ticket.json', change: 'modified', restored: true },
      { path: RENDERED, change: 'modified', restored: true },
    ]);

    const said = off.err.split('\n').filter((l) => l.includes('sandbox:'));
    assert.equal(said.length, 1, off.err);
    assert.match(said[0]!, /^ {2}sandbox: off \(.*bubblewrap \(bwrap\) not installed.*\)$/);
    assert.ok((await cli(['show', runId, '--workspace', ws.root])).out.split('\n').includes(said[0]!.trim()), 'and the report');
    const required = await runBuiltCli(
      ['run', '.tickets/BLOG-5.ticket.json', '--model', 'scripted', '--workspace', ws.root, '--require-sandbox'],
      env,
    );
    assert.equal(required.code, EXIT.error);
    assert.equal(required.err.trim().split('\n').length, 1, required.err);
    assert.match(
      required.err,
      /^ticket-runner: the sandbox is required but cannot start: .*bubblewrap \(bwrap\) not installed.*\. On Debian or Ubuntu: apt-get install bubblewrap socat ripgrep\n$/,
    );
    assert.equal(readdirSync(path.join(ws.root, '.ticket-runner', 'runs')).length, 1, 'no second run was started');
  });
});
