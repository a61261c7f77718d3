import { z } from 'zod';
import { ModelContractError, ScriptExhaustedError } from '../errors';
import type { ModelPort } from '../ports/model';
import { Diagnosis } from '../schema/diagnosis';
import { DEBUGGER_SYSTEM, debuggerPrompt, type DebuggerInputs } from './prompts';

/** Collapses whitespace so a quote that wraps differently still counts as verbatim. */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** Quotes of a diagnosis that are not found in the Debugger's inputs. */
export function missingQuotes(diagnosis: Diagnosis, inputs: DebuggerInputs): string[] {
  const haystack = squash(debuggerPrompt(inputs));
  return diagnosis.evidence.map((e) => e.quote).filter((q) => !haystack.includes(squash(q)));
}

export const diagnosisJsonSchema = (): Record<string, unknown> => z.toJSONSchema(Diagnosis, { io: 'input' }) as Record<string, unknown>;

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
  call: (prompt: string, retryNote: string | undefined) => ReturnType<ModelPort['complete']>,
  inputs: DebuggerInputs,
): Promise<DebuggerOutcome> {
  const rejected: DebuggerOutcome['rejected'] = [];
  const prompt = debuggerPrompt(inputs);
  for (let ask = 0; ask < 2; ask++) {
    const note = rejected.length ? `Your previous diagnosis was rejected: ${rejected[rejected.length - 1]!.reason}. Quote only text that appears in the inputs.` : undefined;
    let response;
    try {
      response = await call(prompt, note);
    } catch (err) {
      // A broken answer is rejected like a bad diagnosis; a script that ran out is a broken test, and stops the run.
      if (err instanceof ModelContractError && !(err instanceof ScriptExhaustedError)) {
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
      rejected.push({ reason: `the diagnosis does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, missingQuotes: [] });
      continue;
    }
    const missing = missingQuotes(parsed.data, inputs);
    if (missing.length) {
      rejected.push({ reason: `${missing.length} quoted evidence text${missing.length > 1 ? 's are' : ' is'} not in the inputs`, missingQuotes: missing });
      continue;
    }
    return { diagnosis: parsed.data, rejected };
  }
  return { diagnosis: null, rejected };
}

export { DEBUGGER_SYSTEM };
