import { PathError } from '../errors';
import type { Manifest } from '../schema/manifest';
import { normalizeRelPath } from './paths';

export type WriteVerdict =
  | { ok: true; path: string }
  | { ok: false; path: string; reason: 'outOfScope' | 'testFile' | 'escapesWorkspace' | 'invalidPath'; detail: string };

/**
 * The write gate: the Coder may write only the files in scope. Tests, files out of scope
 * and paths that escape the workspace are refused, and each refusal is recorded.
 */
export function checkWrite(manifest: Manifest, rawPath: string): WriteVerdict {
  let path: string;
  try {
    path = normalizeRelPath(rawPath);
  } catch (err) {
    const msg = err instanceof PathError ? err.message : String(err);
    return { ok: false, path: rawPath, reason: /escapes|absolute/.test(msg) ? 'escapesWorkspace' : 'invalidPath', detail: msg };
  }
  if (manifest.testFiles.includes(path)) {
    return { ok: false, path, reason: 'testFile', detail: `${path} is a rendered test file: tests are read-only to every model` };
  }
  if (!manifest.scope.write.some((f) => f.path === path)) {
    return { ok: false, path, reason: 'outOfScope', detail: `${path} is not in the ticket's scope.write (${manifest.scope.write.map((f) => f.path).join(', ')})` };
  }
  return { ok: true, path };
}
