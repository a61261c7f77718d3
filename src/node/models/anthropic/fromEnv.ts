import { UserInputError } from '../../../core/errors';
import { AnthropicProvider, type AnthropicProviderOptions } from './provider';

export type AnthropicEnvOptions = Omit<AnthropicProviderOptions, 'apiKey'>;

/**
 * The provider for the headless CLI: the key from ANTHROPIC_API_KEY, the address from
 * ANTHROPIC_BASE_URL when set. Fails before any work starts when there is no key.
 */
export function createAnthropicProviderFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: AnthropicEnvOptions = {},
): AnthropicProvider {
  const apiKey = anthropicKeyFrom(env);
  const baseURL = options.baseURL ?? (env['ANTHROPIC_BASE_URL']?.trim() || undefined);
  return new AnthropicProvider({ ...options, apiKey, ...(baseURL ? { baseURL } : {}) });
}

/** The key from ANTHROPIC_API_KEY, or the error that says how to set it. */
export function anthropicKeyFrom(env: Readonly<Record<string, string | undefined>>): string {
  const apiKey = env['ANTHROPIC_API_KEY']?.trim();
  if (!apiKey) {
    throw new UserInputError(
      'ANTHROPIC_API_KEY is not set. Create a key at https://console.anthropic.com/settings/keys, then ' +
        'export ANTHROPIC_API_KEY=<your key> in the shell that runs ticket-runner; ' +
        'or, for the demo with recorded answers, run with --model scripted (a test and demo tool).',
    );
  }
  return apiKey;
}
