import { fence, type DebuggerInputs } from '../common/evidence';

export const DEBUGGER_SYSTEM = [
  "You are the Debugger of Ticket Runner. You never see the Coder's reasoning, only its code and the results.",
  'Decide who owns the fix: "code" (the implementation is wrong), "manifest" (the scope misses a file the change needs),',
  '"test" (the test expectation contradicts the ticket), or "ticket" (the ticket names something that does not exist).',
  'Quote your evidence verbatim from the input you name as its source (testOutput, diagnostics, testFile, implementation, manifest, history);',
  'each quote needs at least 8 non-space characters, and one that is not found in its source rejects the diagnosis.',
  'Answer through the diagnosis tool.',
].join('\n');

/**
 * The Debugger's prompt in two parts. `context` is what stays the same for every diagnosis of a
 * run (the manifest, the tests, the errors that were there before), first, so it is read from
 * the prompt cache after the first; `findings` is this attempt's (its checks, test output, code
 * and the history so far).
 */
export function debuggerPromptParts(i: DebuggerInputs): { context: string; findings: string } {
  const join = (parts: string[]) => parts.filter(Boolean).join('\n\n');
  return {
    context: join([
      `## Manifest\n${i.manifest}`,
      `## Test files\n${i.testFiles.map(fence).join('\n')}`,
      i.preExisting ? `## Pre-existing (not counted): errors that were in the project before the run\n${i.preExisting}` : '',
    ]),
    findings: join([
      i.diagnostics ? `## Diagnostics\n${i.diagnostics}` : '',
      `## Latest test output\n${i.testOutput}`,
      `## Latest implementation\n${i.implementation.map(fence).join('\n')}`,
      i.history.length
        ? `## Attempt history\n${i.history.map((h) => `### Attempt ${h.attempt}\n${h.files.map(fence).join('\n')}\nFailure:\n${h.failure}`).join('\n')}`
        : '',
    ]),
  };
}

/** The Debugger's whole prompt, as one text (what the bench measures). */
export function debuggerPrompt(i: DebuggerInputs): string {
  const { context, findings } = debuggerPromptParts(i);
  return `${context}\n\n${findings}`;
}
