import type { z } from 'zod';
import { Manifest } from '../../src/core/schema/manifest';

type ManifestInput = z.input<typeof Manifest>;

/** Fields of a manifest to set; `scope` may set one of its lists alone. */
export type ManifestOverrides = Omit<Partial<ManifestInput>, 'scope'> & { scope?: Partial<ManifestInput['scope']> };

const ONE_CASE = {
  files: [{ path: 'test/t.test.ts', suite: 's', cases: [{ name: 'c', expect: [{ kind: 'truthy', actual: 'true' }] }] }],
} satisfies ManifestInput['testPlan'];

/**
 * A valid manifest for a test that spells only the fields it is about: ticket T-1, `src/a.ts` in
 * scope to write, one criterion, one visible file of one case, node:test over CommonJS TypeScript.
 * Parsed with the schema, so an override the real manifest could not hold fails here, and
 * `testFiles` follows the plan unless set, as the manifest builder renders one file per plan file.
 */
export function aManifest(overrides: ManifestOverrides = {}): Manifest {
  const { scope, testPlan = ONE_CASE, ticketId = 'T-1', ...rest } = overrides;
  return Manifest.parse({
    version: 1,
    ticketId,
    ticketPath: `.tickets/${ticketId}.ticket.json`,
    title: 't',
    description: 'd',
    acceptance: [{ id: 'AC1', text: 'x' }],
    runner: { framework: 'node:test', detectedFrom: 'test' },
    testFiles: (testPlan.files ?? []).map((f) => f.path),
    testLanguage: 'ts',
    moduleKind: 'cjs',
    refs: [],
    ops: [],
    facts: [],
    ...rest,
    testPlan,
    scope: { write: [{ path: 'src/a.ts', exists: true }], read: [], ...scope },
  });
}
