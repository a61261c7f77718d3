import type { SourceMapPayload } from 'node:module';
import { z } from 'zod';

/**
 * A source map's JSON as Node's `SourceMap` takes it. Maps come from the workspace's build or a
 * test run, so they are checked: `mappings` is required, what a map may leave out gets its
 * empty value. The contents are not kept: positions are all that is read.
 */
export const SourceMapJson = z
  .looseObject({
    version: z.number().default(3),
    file: z.string().default(''),
    sourceRoot: z.string().default(''),
    sources: z.array(z.string()).default([]),
    names: z.array(z.string()).default([]),
    mappings: z.string(),
  })
  .transform((m): SourceMapPayload => ({
    version: m.version,
    file: m.file,
    sourceRoot: m.sourceRoot,
    sources: m.sources,
    sourcesContent: [],
    names: m.names,
    mappings: m.mappings,
  }));
