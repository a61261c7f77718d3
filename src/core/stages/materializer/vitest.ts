import { expectAssertions } from './assertions';
import { jestHooks, type FrameworkDialect } from './dialect';

/** vitest imports everything from its own module, which throws when required. */
export const vitest: FrameworkDialect = {
  module: 'vitest',
  esmOnly: true,
  hooks: jestHooks,
  assertions: expectAssertions,
};
