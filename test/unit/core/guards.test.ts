import assert from 'node:assert/strict';
import { diagnose, evidenceProblems } from '../../../src/core/stages/debugger/debuggerStage';
import type { DebuggerInputs } from '../../../src/core/stages/common/evidence';
import { route } from '../../../src/core/stages/router/router';
import { changedStatements, textShape } from '../../../src/core/stages/router/repeatGuard';
import { checkWrite } from '../../../src/core/stages/coder/writeGate';
import type { Diagnosis } from '../../../src/core/schema/diagnosis';
import { aManifest } from '../../support/aManifest';

const manifest = aManifest({ scope: { write: [{ path: 'src/a.ts', exists: true }], read: [{ path: 'src/b.ts', exists: true }] } });

const inputs: DebuggerInputs = {
  manifest: 'scope: src/a.ts',
  testFiles: [{ path: 'test/t.test.ts', content: 'assert.equal(add(1, 2), 3);' }],
  testOutput: 'test/t.test.ts:1:1 TS2345: Argument of type string\nExpected: 3\nReceived: 4',
  diagnostics: 'test/t.test.ts:1:1 TS2345: Argument of type string',
  preExisting: '',
  // The Coder added the comment line: text planted for the Debugger to quote.
  implementation: [
    { path: 'src/a.ts', content: '// the test expects the wrong sum\nexport const add = (a: number, b: number) => a + b + 1;' },
  ],
  pristine: [{ path: 'src/a.ts', content: 'export const add = (a: number, b: number) => a + b + 1;' }],
  history: [],
};

const diag = (over: Partial<Diagnosis>): Diagnosis => ({
  kind: 'code',
  claim: 'add adds one too many',
  evidence: [{ source: 'implementation', quote: '(a: number, b: number) => a + b + 1' }],
  brief: 'drop the + 1',
  avoid: [],
  ...over,
});

describe('write gate', () => {
  it('allows a file in scope', () => assert.deepEqual(checkWrite(manifest, './src/a.ts'), { ok: true, path: 'src/a.ts' }));
  it('refuses a file outside the scope', () => {
    const v = checkWrite(manifest, 'src/b.ts');
    assert.equal(v.ok, false);
    assert.equal(!v.ok && v.reason, 'outOfScope');
  });
  it('refuses a rendered test file', () => assert.equal((checkWrite(manifest, 'test/t.test.ts') as { reason: string }).reason, 'testFile'));
  it('refuses a path that escapes the workspace, and an absolute one', () => {
    assert.equal((checkWrite(manifest, 'src/../../etc/passwd') as { reason: string }).reason, 'escapesWorkspace');
    assert.equal((checkWrite(manifest, '/etc/passwd') as { reason: string }).reason, 'escapesWorkspace');
  });
});

describe('Debugger evidence', () => {
  it('finds quotes verbatim in the input they name, tolerating line wrapping, and reports the ones it cannot', () => {
    assert.deepEqual(evidenceProblems(diag({ evidence: [{ source: 'testOutput', quote: 'Expected: 3 Received: 4' }] }), inputs), []);
    assert.deepEqual(evidenceProblems(diag({ evidence: [{ source: 'implementation', quote: 'return a - b;' }] }), inputs), [
      '"return a - b;" is not in the implementation',
    ]);
    // Found in the prompt, but not in the source it names.
    assert.deepEqual(evidenceProblems(diag({ evidence: [{ source: 'diagnostics', quote: 'Expected: 3 Received: 4' }] }), inputs), [
      '"Expected: 3 Received: 4" is not in the diagnostics',
    ]);
    assert.deepEqual(
      evidenceProblems(diag({ evidence: [{ source: 'testFile', file: 'test/t.test.ts', quote: 'assert.equal(add(1, 2), 3)' }] }), inputs),
      [],
    );
  });

  it('refuses a quote too short to mean anything: "(" is in every input', () => {
    for (const quote of ['(', ' a + b ', 'Expected']) {
      const problems = evidenceProblems(diag({ evidence: [{ source: 'implementation', quote }] }), inputs);
      assert.equal(problems.length, quote === 'Expected' ? 1 : 1, quote);
      assert.match(problems[0]!, quote === 'Expected' ? /not in the implementation/ : /too short to carry meaning/);
    }
  });

  it('text the Coder planted in its code supports a code claim, never a claim that the test is wrong', () => {
    const planted = { source: 'implementation' as const, file: 'src/a.ts', quote: 'the test expects the wrong sum' };
    assert.deepEqual(evidenceProblems(diag({ kind: 'code', evidence: [planted] }), inputs), []);
    assert.deepEqual(evidenceProblems(diag({ kind: 'test', evidence: [planted] }), inputs), [
      '"the test expects the wrong sum" is found only in code the Coder wrote: it cannot support "test is wrong"',
    ]);
    // The same claim quoting the project's own code from before the run stands, and a planted quote beside it only illustrates.
    assert.deepEqual(
      evidenceProblems(diag({ kind: 'test', evidence: [{ source: 'implementation', quote: 'b: number) => a + b + 1;' }] }), inputs),
      [],
    );
    assert.deepEqual(
      evidenceProblems(
        diag({ kind: 'test', evidence: [planted, { source: 'diagnostics', quote: 'TS2345: Argument of type string' }] }),
        inputs,
      ),
      [],
    );
  });

  it('rejects a diagnosis that quotes text absent from its inputs, asks once more, then gives up', async () => {
    let calls = 0;
    const bad = diag({ evidence: [{ source: 'implementation', quote: 'return a * b;' }] });
    const out = await diagnose(async () => {
      calls++;
      return {
        text: '',
        structured: bad,
        toolCalls: [],
        stopReason: 'end',
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        latencyMs: 0,
        retries: 0,
      };
    }, inputs);
    assert.equal(calls, 2);
    assert.equal(out.diagnosis, null);
    assert.deepEqual(
      out.rejected.map((r) => r.missingQuotes),
      [['return a * b;'], ['return a * b;']],
    );
  });

  it('rejects an answer that is not valid JSON, then accepts a valid second answer', async () => {
    const answers = [{ text: 'I think the bug is in add' }, { text: JSON.stringify(diag({})) }];
    const out = await diagnose(
      async () => ({
        ...answers.shift()!,
        toolCalls: [],
        stopReason: 'end',
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        costUsd: 0,
        latencyMs: 0,
        retries: 0,
      }),
      inputs,
    );
    assert.equal(out.diagnosis?.kind, 'code');
    assert.match(out.rejected[0]!.reason, /not valid JSON/);
  });
});

describe('router guards', () => {
  const base = { manifest, diagnostics: [], workspaceRoot: '/ws' };

  it('overrides a "test is wrong" claim with no machine fact to the code path', () => {
    const d = route({ ...base, diagnosis: diag({ kind: 'test' }) });
    assert.equal(d.route, 'code');
    assert.equal(d.claimed, 'test');
    assert.equal(d.guard.verdict, 'overridden');
  });

  it('confirms "test is wrong" when the test file has a type error that the code before the Coder already gives it', () => {
    const error = { file: 'test/t.test.ts', line: 3, column: 1, code: 'TS2345', category: 'error' as const, message: 'bad arg' };
    // The editor's TypeScript may word it otherwise than the headless one: file, code and line decide.
    const d = route({
      ...base,
      diagnosis: diag({ kind: 'test' }),
      diagnostics: [error],
      testErrorsBeforeCoder: [{ ...error, message: 'bad argument' }],
    });
    assert.equal(d.route, 'test');
    assert.equal(d.guard.fact?.kind, 'testTypeError');
    const elsewhere = route({
      ...base,
      diagnosis: diag({ kind: 'test' }),
      diagnostics: [error],
      testErrorsBeforeCoder: [{ ...error, line: 9 }],
    });
    assert.equal(elsewhere.route, 'code');
  });

  it("a type error in the test that only the Coder's change brought in is the code's fault, not a fact about the test", () => {
    const error = { file: 'test/t.test.ts', line: 3, column: 1, code: 'TS2345', category: 'error' as const, message: 'bad arg' };
    for (const before of [[], undefined]) {
      const d = route({ ...base, diagnosis: diag({ kind: 'test' }), diagnostics: [error], testErrorsBeforeCoder: before });
      assert.deepEqual([d.route, d.guard.verdict], ['code', 'overridden']);
    }
  });

  it('a stack frame outside the scope alone does not confirm "manifest is wrong" (scopeGuard.test.ts holds the whole case)', () => {
    const tests = {
      status: 'failed' as const,
      framework: 'node:test',
      command: [],
      passed: 0,
      failed: 1,
      skipped: 0,
      durationMs: 1,
      output: '',
      cases: [
        {
          name: 'c',
          status: 'failed' as const,
          stack: 'TypeError: x\n    at run (/ws/src/other.ts:4:9)\n    at /ws/node_modules/x/y.js:1:1',
        },
      ],
    };
    const d = route({ ...base, diagnosis: diag({ kind: 'manifest' }), tests });
    assert.deepEqual([d.route, d.guard.verdict, d.guard.fact], ['code', 'overridden', undefined]);
    assert.match(d.guard.detail, /src\/other\.ts:4: it shows where the failure surfaced/);
  });

  it('confirms "manifest is wrong" when the fix for a missing symbol must change a file outside the scope', () => {
    const refusedFixes = [
      {
        file: 'src/a.ts',
        code: 'TS2459',
        fixName: 'fixImportNonExportedMember',
        description: "Export 'helper' from module './b'",
        files: ['src/a.ts', 'src/b.ts'],
      },
    ];
    const d = route({ ...base, diagnosis: diag({ kind: 'manifest' }), refusedFixes });
    assert.deepEqual([d.route, d.guard.fact?.kind, d.guard.fact?.file], ['manifest', 'symbolNotInScope', 'src/b.ts']);
    assert.equal(route({ ...base, diagnosis: diag({ kind: 'manifest' }) }).guard.verdict, 'overridden');
  });

  it('abstains without a diagnosis, and escalates a repeated approach', () => {
    assert.equal(route({ ...base, diagnosis: null }).guard.verdict, 'abstained');
    const change = (after: string) => changedStatements('src/a.ts', textShape('a\nb\n'), textShape(after));
    const same = change('a\nb\nif (x > 100) { return 400; } // guard\n');
    const again = change('a\nb\nif (limit>100) {return 400;}\n');
    assert.deepEqual(same, again);
    const escalated = route({ ...base, diagnosis: diag({}), repeat: { current: again, previous: same } });
    assert.equal(escalated.route, 'escalate');
    assert.match(escalated.guard.fact?.detail ?? '', /100% the same code structure/);
    const other = change('a\nb\nwhile (queue.length) { queue.shift()?.run(); }\n');
    assert.equal(route({ ...base, diagnosis: diag({}), repeat: { current: other, previous: same } }).route, 'code');
  });
});
