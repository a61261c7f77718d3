import { THINKING_BUDGET_TOKENS } from '../core/recovery/policy';
import type { ModelAdaptation } from '../core/schema/events';

/** What the editor says about a chat model: enough to choose its thinking option. */
export interface LmModelIdentity {
  vendor: string;
  family: string;
  id: string;
}

type ThinkingMapping = Extract<ModelAdaptation, { kind: 'thinkingMapped' | 'thinkingUnavailable' }>;

/**
 * The option families that ask a model to reason before it answers. The Language Model API has
 * no thinking switch: `modelOptions` is passed to the model's provider as it is, and which keys it
 * reads is the provider's business. These are the keys of the models' own APIs.
 */
const FAMILIES: { pattern: RegExp; modelOptions: Record<string, unknown>; option: string }[] = [
  // OpenAI's reasoning models (o1, o3, o4-mini, gpt-5...): reasoning effort.
  {
    pattern: /^(?:o[1-9](?:\b|-)|gpt-5)/i,
    modelOptions: { reasoning_effort: 'high' },
    option: 'reasoning_effort "high", the option of OpenAI\'s reasoning models',
  },
  // Claude 3.7 and the Claude 4 family: extended thinking with a token budget. Claude 3.5 and older have none.
  {
    pattern: /^claude-(?:3[.-]7|(?:sonnet|opus|haiku)-4|4)/i,
    modelOptions: { thinking: { type: 'enabled', budget_tokens: THINKING_BUDGET_TOKENS } },
    option: `thinking { type: "enabled", budget_tokens: ${THINKING_BUDGET_TOKENS} }, Anthropic's extended thinking`,
  },
];

/**
 * Extended thinking for a vscode.lm chat model: the closest option its family is known to take,
 * or "not available". Either way the receipt says so; when mapped, it also says that the API
 * cannot confirm the provider passed the option on.
 */
export function thinkingFor(model: LmModelIdentity): ThinkingMapping {
  const known = FAMILIES.find((f) => f.pattern.test(model.family));
  const name = `${model.vendor}/${model.family}`;
  if (!known) {
    return {
      kind: 'thinkingUnavailable',
      detail: `extended thinking is not available for ${name}: the Language Model API has no thinking switch and no option is known for this model family; the call ran without it`,
    };
  }
  return {
    kind: 'thinkingMapped',
    modelOptions: known.modelOptions,
    detail: `extended thinking sent to ${name} as modelOptions ${known.option}; the Language Model API cannot confirm that the provider honours it`,
  };
}
