import type { Manifest } from '../../schema/manifest';
import { expectationSources, type Expectation } from '../../schema/testPlan';
import type { SourceFile } from '../common/evidence';

/**
 * The held-out cases' own text, as the Coder must never read it, and the check that keeps it out
 * of everything sent to the Coder. The Coder may learn of a held-out case only that it exists,
 * which criterion it checks and that the fix was too narrow; a brief, a failure or a tool result
 * that quotes its inputs or expected values would let the next attempt tailor the fix to it,
 * whatever put the text there (a Debugger's brief, the code under test printing it).
 */

/** Shorter than this, a piece of text is too common to be a case's own (`400`, `[]`). */
const MIN_SECRET = 4;

/** Said instead of a Debugger brief that quoted a held-out case. */
export const WITHHELD_BRIEF =
  "[ticket-runner] The Debugger's brief quoted a held-out case, so it was withheld: the change must satisfy the acceptance criteria for every input they cover, not only the cases you were shown.";

/** What stands for a held-out case's text that was taken out of a message. */
export const WITHHELD_TEXT = '[held out]';

const expectationTexts = (e: Expectation): string[] => [
  ...Object.values(expectationSources(e)),
  ...('message' in e && e.message !== undefined ? [e.message] : []),
];

/** A source text's string literals' contents: an input or expected value, however the code around it is written. */
function literals(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/**
 * The held-out cases' texts that the Coder does not otherwise see: each statement and expression
 * of a case, and the string literals in them. A text that the visible material holds (the
 * ticket's words, the visible plan, the files in scope before the run) is not the case's own,
 * and is kept out of the list so that the check never takes the ticket's own words away.
 */
export function heldOutSecrets(manifest: Manifest, pristine: readonly SourceFile[] = []): string[] {
  const cases = manifest.heldOut.files.flatMap((f) => f.cases);
  if (!cases.length) return [];
  const visible = [
    manifest.title,
    manifest.description,
    ...manifest.acceptance.map((a) => a.text),
    JSON.stringify(manifest.testPlan),
    ...manifest.testPlan.files.flatMap((f) => f.cases.flatMap((c) => [...c.arrange, ...c.expect.flatMap(expectationTexts)])),
    ...pristine.map((f) => f.content),
  ].join('\n');
  const texts = cases.flatMap((c) => {
    const code = [...c.arrange, ...c.expect.flatMap(expectationTexts)];
    return [c.name, ...code, ...code.flatMap(literals)];
  });
  const secrets = new Set(texts.map((t) => t.trim()).filter((t) => t.replace(/\s/g, '').length >= MIN_SECRET && !visible.includes(t)));
  // The longest first: a statement is taken out whole before a literal inside it.
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** The secrets `text` holds. */
export function leakedIn(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => text.includes(s));
}

/** `text` with every secret in it replaced (the count says how many kinds were there). */
export function withoutHeldOut(text: string, secrets: readonly string[]): { text: string; count: number } {
  let out = text;
  let count = 0;
  for (const s of secrets) {
    if (!out.includes(s)) continue;
    count++;
    out = out.split(s).join(WITHHELD_TEXT);
  }
  return { text: out, count };
}
