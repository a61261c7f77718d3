import { z } from 'zod';

/** A field read when it has the shape it is read as; any other value reads as absent. */
const field = <T extends z.ZodType>(shape: T) => shape.optional().catch(undefined);
const names = z.record(z.string(), z.string());

/**
 * A package.json as far as Ticket Runner reads it: the workspace's, a package's, a tool's own.
 * Everything else passes through. Written by hand, so a field of an odd shape is taken as
 * missing, as a tool reading it would, rather than failing whatever was reading the rest.
 */
export const PackageJson = z.looseObject({
  name: field(z.string()),
  version: field(z.string()),
  type: field(z.string()),
  bin: field(z.union([z.string(), names])),
  scripts: field(names),
  dependencies: field(names),
  devDependencies: field(names),
  optionalDependencies: field(names),
  peerDependencies: field(names),
  workspaces: z.unknown().optional(),
  eslintConfig: z.unknown().optional(),
  exports: z.unknown().optional(),
  types: z.unknown().optional(),
  typings: z.unknown().optional(),
  module: z.unknown().optional(),
  main: z.unknown().optional(),
});
export type PackageJson = z.infer<typeof PackageJson>;

/**
 * A package.json's text read through `PackageJson`. Text that is not JSON throws (a
 * SyntaxError, as before: each caller says what that means to it); JSON that is not an
 * object names nothing, and reads as `{}`.
 */
export function parsePackageJson(text: string): PackageJson {
  const parsed = PackageJson.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : {};
}
