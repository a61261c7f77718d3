import { nodeAssert } from './assertions';
import { mochaHooks, type FrameworkDialect } from './dialect';

/** mocha installs describe, it and the hooks as globals and has no assertions of its own. */
export const mocha: FrameworkDialect = {
  esmOnly: false,
  hooks: mochaHooks,
  assertions: nodeAssert,
};
