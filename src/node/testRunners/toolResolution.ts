import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parsePackageJson } from '../../core/schema/packageJson';

/**
 * Finds tools the way Node would from each of `dirs` in turn (the workspace first, then the
 * extension's own folder): a test runner must be the workspace's version when it has one.
 */
export class ToolResolver {
  private readonly dirs: string[];

  constructor(...dirs: (string | undefined)[]) {
    this.dirs = dirs.filter((d): d is string => d !== undefined);
  }

  /**
   * The JavaScript file of a package's bin, to run with node directly (no shell, no .cmd shim).
   * Looks for node_modules/<name>/package.json rather than calling require.resolve, which a
   * package's exports map may refuse.
   */
  bin(name: string): string | undefined {
    for (const manifest of this.manifests(name)) {
      const { bin } = parsePackageJson(readFileSync(manifest, 'utf8'));
      const entry = typeof bin === 'string' ? bin : (bin?.[name] ?? Object.values(bin ?? {})[0]);
      if (entry) return join(dirname(manifest), entry);
    }
    return undefined;
  }

  /** The version of the package `bin(name)` runs. */
  version(name: string): string | undefined {
    for (const manifest of this.manifests(name)) return parsePackageJson(readFileSync(manifest, 'utf8')).version;
    return undefined;
  }

  /** Whether a package is installed where Node would find it (a plugin another tool loads by name). */
  installed(name: string): boolean {
    return !this.manifests(name).next().done;
  }

  private *manifests(name: string): Generator<string> {
    for (const start of this.dirs) {
      for (let dir = start; ; dir = dirname(dir)) {
        const manifest = join(dir, 'node_modules', name, 'package.json');
        if (existsSync(manifest)) yield manifest;
        if (dirname(dir) === dir) break;
      }
    }
  }

  /** A module's file, resolved as `require.resolve(specifier)` would from each folder. */
  module(specifier: string): string | undefined {
    for (const dir of this.dirs) {
      try {
        return createRequire(join(dir, 'package.json')).resolve(specifier);
      } catch {
        // Not installed there: try the next folder.
      }
    }
    return undefined;
  }
}
