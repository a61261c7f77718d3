export { AnthropicProvider, ANTHROPIC_API_URL, DEFAULT_ANTHROPIC_MODEL, type AnthropicProviderOptions } from './provider';
export { anthropicKeyFrom, createAnthropicProviderFromEnv, type AnthropicEnvOptions } from './fromEnv';
