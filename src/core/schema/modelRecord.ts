import { z } from 'zod';
import { parseToolJson } from './toolOutput';

/**
 * A model call's prompt as the run's blobs keep it (`promptRecord`, src/core/stages/common/modelCall.ts),
 * as far as the views and `record` read it. A blob is a file of the run folder, which may come
 * from anywhere (merge-report, a shared run): it is checked before it is shown or replayed.
 */
export const PromptRecord = z.looseObject({
  system: z.string().optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.string(),
        content: z.string(),
        toolCalls: z.array(z.unknown()).optional(),
        toolCallId: z.string().optional(),
      }),
    )
    .optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  structured: z.looseObject({ name: z.string() }).optional(),
  thinking: z.boolean().optional(),
});
export type PromptRecord = z.infer<typeof PromptRecord>;

/** A model call's raw answer as the run's blobs keep it (`answerRecord`, src/core/stages/common/modelCall.ts). */
export const AnswerRecord = z.looseObject({
  text: z.string().optional(),
  structured: z.unknown().optional(),
  toolCalls: z.array(z.looseObject({ name: z.string(), input: z.unknown().optional() })).optional(),
  stopReason: z.string().optional(),
});
export type AnswerRecord = z.infer<typeof AnswerRecord>;

export const parsePromptRecord = (text: string, hash: string): PromptRecord =>
  parseToolJson(PromptRecord, text, `the run's prompt record ${hash} is not a prompt record`);
export const parseAnswerRecord = (text: string, hash: string): AnswerRecord =>
  parseToolJson(AnswerRecord, text, `the run's answer record ${hash} is not an answer record`);
