import { z } from 'zod';

/**
 * A script for the scripted provider: recorded answers per role, replayed in call order.
 * Lives beside the ticket as `.tickets/<ID>.script.json`.
 */
const FileContent = z.union([
  z.string(),
  z.object({ from: z.string().min(1).describe('A file beside the script holding the content') }).strict(),
]);

export const ScriptedAnswer = z
  .object({
    /** Checks that the call is the one this answer was recorded for. */
    expect: z
      .object({
        attempt: z.number().int().optional(),
        promptIncludes: z.array(z.string()).default([]),
        thinking: z.boolean().optional(),
      })
      .strict()
      .optional(),
    /** Raw answer text. */
    text: z.string().optional(),
    /** Coder answers: whole files, rendered as the Coder's fenced blocks. */
    files: z.record(z.string(), FileContent).optional(),
    /** Prose before the files, as a real model might write. */
    preamble: z.string().optional(),
    /** Structured answers (Debugger, reviewers): the tool input, validated by the caller. */
    structured: z.unknown().optional(),
    /** Tool calls the model makes: the Coder's edits (`str_replace_based_edit_tool`), rung 4's `run_tests`. */
    toolCalls: z.array(z.object({ name: z.string(), input: z.unknown() }).strict()).optional(),
    /** `maxTokens`: the answer ends at the token limit, cut, as a real model's long answer does. */
    stopReason: z.enum(['maxTokens']).optional(),
    /** Faults for the tests: the transport fails, or the stream stalls until aborted. */
    fault: z.enum(['transportError', 'stall']).optional(),
    /** Streaming pace, to exercise stream watchers. */
    chunkChars: z.number().int().positive().optional(),
  })
  .strict();
export type ScriptedAnswer = z.infer<typeof ScriptedAnswer>;

export const ModelScript = z
  .object({
    $comment: z.string().optional(),
    coder: z.array(ScriptedAnswer).default([]),
    debugger: z.array(ScriptedAnswer).default([]),
    reviewer: z.array(ScriptedAnswer).default([]),
    testReviewer: z.array(ScriptedAnswer).default([]),
    /** `draft`: tickets drafted from an issue's text, outside any run. */
    drafter: z.array(ScriptedAnswer).optional(),
  })
  .strict();
export type ModelScript = z.infer<typeof ModelScript>;
