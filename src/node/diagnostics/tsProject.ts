import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePackageJson } from '../../core/schema/packageJson';

/**
 * Whether the workspace has anything to type-check: a tsconfig.json, or npm workspaces (whose
 * packages have their own). Apart from the language service, so that asking loads no TypeScript.
 */
export function hasTypeScriptProject(root: string): boolean {
  return declaresWorkspaces(root) || existsSync(join(root, 'tsconfig.json'));
}

export function declaresWorkspaces(root: string): boolean {
  try {
    const { workspaces } = parsePackageJson(readFileSync(join(root, 'package.json'), 'utf8'));
    return workspaces !== undefined && workspaces !== null;
  } catch {
    return false;
  }
}
