import { nodeAssert } from './assertions';
import { mochaHooks, type FrameworkDialect } from './dialect';

/** Node's built-in runner: describe, it and the hooks come from node:test; assertions from node:assert. */
export const nodeTest: FrameworkDialect = {
  module: 'node:test',
  esmOnly: false,
  hooks: mochaHooks,
  assertions: nodeAssert,
};
