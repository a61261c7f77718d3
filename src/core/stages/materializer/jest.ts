import { expectAssertions } from './assertions';
import { jestHooks, type FrameworkDialect } from './dialect';

/** jest installs describe, it, expect and the hooks as globals. */
export const jest: FrameworkDialect = {
  esmOnly: false,
  hooks: jestHooks,
  assertions: expectAssertions,
};
