import { z } from 'zod';
import { ModelContractError } from '../../errors';
import type { ModelPort, ModelRequest } from '../../ports/model';
import { Diagnosis, type Evidence } from '../../schema/diagnosis';
import type { DebuggerInputs, SourceFile } from '../common/evidence';
import { DEBUGGER_SYSTEM, debuggerPromptParts } from './prompt';

/** Collapses whitespace so a quote that wraps differently still counts as verbatim. */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** The shortest quote that can carry meaning: "(" or "x" is found anywhere. */
export const MIN_QUOTE_CHARS = 8;

const joinFiles = (files: readonly SourceFile[], only?: string): string =>
  files
    .filter((f) => only === undefined || f.path === only)
    .map((f) => f.content)
    .join('\n');

/** The text of the input a quote names as its source (one file of it, when the quote names one). */
function sourceText(e: Evidence, i: DebuggerInputs): string {
  switch (e.source) {
    case 'testOutput':
      return i.testOutput;
    case 'diagnostics':
      return i.diagnostics;
    case 'testFile':
      return joinFiles(i.testFiles, i.testFiles.some((f) => f.path === e.file) ? e.file : undefined);
    case 'implementation':
      return joinFiles(i.implementation, i.implementation.some((f) => f.path === e.file) ? e.file : undefined);
    case 'manifest':
      return i.manifest;
    case 'history':
      return i.history.map((h) => `${joinFiles(h.files)}\n${h.failure}`).join('\n');
  }
}

/** The lines the Coder added to the scope's files: text it could have planted for the Debugger to quote. */
function coderWritten(i: DebuggerInputs): string {
  const pristine = new Set(i.pristine.flatMap((f) => f.content.split('\n')));
  return i.implementation.flatMap((f) => f.content.split('\n').filter((line) => !pristine.has(line))).join('\n');
}

/**
 * What is wrong with a diagnosis's evidence, one line per bad quote. A quote must carry
 * meaning (MIN_QUOTE_CHARS non-space characters) and be found verbatim in the input it names.
 * For a claim that something other than the code is wrong, a quote found in the lines the
 * Coder wrote and in nothing the Coder cannot write (the tests, the manifest, the code before
 * the run) may illustrate, but cannot support: at least one quote must come from elsewhere.
 */
export function evidenceProblems(diagnosis: Diagnosis, inputs: DebuggerInputs): string[] {
  const problems: string[] = [];
  const written = squash(coderWritten(inputs));
  const trusted = squash([inputs.manifest, joinFiles(inputs.testFiles), joinFiles(inputs.pristine)].join('\n'));
  const planted: string[] = [];
  for (const e of diagnosis.evidence) {
    const q = squash(e.quote);
    const shown = JSON.stringify(e.quote);
    if (q.replace(/\s/g, '').length < MIN_QUOTE_CHARS)
      problems.push(`${shown} is too short to carry meaning (at least ${MIN_QUOTE_CHARS} non-space characters)`);
    else if (!squash(sourceText(e, inputs)).includes(q)) problems.push(`${shown} is not in the ${e.source}${e.file ? ` (${e.file})` : ''}`);
    else if (written.includes(q) && !trusted.includes(q)) planted.push(shown);
  }
  if (!problems.length && diagnosis.kind !== 'code' && planted.length === diagnosis.evidence.length) {
    problems.push(
      ...planted.map((shown) => `${shown} is found only in code the Coder wrote: it cannot support "${diagnosis.kind} is wrong"`),
    );
  }
  return problems;
}

export const diagnosisJsonSchema = (): Record<string, unknown> => z.toJSONSchema(Diagnosis, { io: 'input' });

/** The Debugger's call, the same in a run and in the routing benchmark: the prompt, and a retry's note after it. */
/** The Debugger's prompt: what every diagnosis of the run shares (cached), and this attempt's findings. */
export interface DebuggerPrompt {
  context: string;
  findings: string;
}

export function debuggerRequest(attempt: number, prompt: DebuggerPrompt, note: string | undefined): ModelRequest & { role: 'debugger' } {
  return {
    role: 'debugger',
    attempt,
    system: DEBUGGER_SYSTEM,
    messages: [
      { role: 'user', content: prompt.context, cache: true },
      { role: 'user', content: note ? `${prompt.findings}\n\n${note}` : prompt.findings },
    ],
    structured: { name: 'diagnosis', description: 'Report the diagnosis of the failed attempt', jsonSchema: diagnosisJsonSchema() },
  };
}

export interface DebuggerOutcome {
  diagnosis: Diagnosis | null;
  rejected: { reason: string; missingQuotes: string[] }[];
}

/**
 * Asks the Debugger for a diagnosis, validates it with zod, and checks every quote. A
 * diagnosis that fails either is rejected and asked for once more; a second failure
 * means no diagnosis, and the failure takes the code path.
 */
export async function diagnose(
  call: (prompt: DebuggerPrompt, retryNote: string | undefined) => ReturnType<ModelPort['complete']>,
  inputs: DebuggerInputs,
): Promise<DebuggerOutcome> {
  const rejected: DebuggerOutcome['rejected'] = [];
  const prompt = debuggerPromptParts(inputs);
  for (let ask = 0; ask < 2; ask++) {
    const note = rejected.length
      ? `Your previous diagnosis was rejected: ${rejected[rejected.length - 1]!.reason}. Quote only text that appears in the input you name as its source.`
      : undefined;
    let response;
    try {
      response = await call(prompt, note);
    } catch (err) {
      // A broken answer is rejected like a bad diagnosis; any other error is not the answer's fault.
      if (err instanceof ModelContractError) {
        rejected.push({ reason: err.message, missingQuotes: [] });
        continue;
      }
      throw err;
    }
    let raw: unknown = response.structured;
    if (raw === undefined) {
      try {
        raw = JSON.parse(response.text);
      } catch {
        rejected.push({ reason: 'the answer is not valid JSON and used no diagnosis tool', missingQuotes: [] });
        continue;
      }
    }
    const parsed = Diagnosis.safeParse(raw);
    if (!parsed.success) {
      rejected.push({
        reason: `the diagnosis does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        missingQuotes: [],
      });
      continue;
    }
    const problems = evidenceProblems(parsed.data, inputs);
    if (problems.length) {
      rejected.push({
        reason: `the evidence does not hold: ${problems.join('; ')}`,
        missingQuotes: parsed.data.evidence.map((e) => e.quote).filter((q) => problems.some((p) => p.startsWith(JSON.stringify(q)))),
      });
      continue;
    }
    return { diagnosis: parsed.data, rejected };
  }
  return { diagnosis: null, rejected };
}
