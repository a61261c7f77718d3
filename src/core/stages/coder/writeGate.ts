import { PathError } from '../../errors';
import type { RunLog } from '../../run/runLog';
import type { Manifest } from '../../schema/manifest';
import type { CoderFile } from './coderAnswer';
import type { PipelineDeps } from '../common/context';
import { normalizeRelPath } from '../../schema/paths';
import { describeElision, findElision, ticketWords } from './elision';
import { writeOverUserEdits } from '../common/userEdits';

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
    return {
      ok: false,
      path,
      reason: 'outOfScope',
      detail: `${path} is not in the ticket's scope.write (${manifest.scope.write.map((f) => f.path).join(', ')})`,
    };
  }
  return { ok: true, path };
}

/** A file written through the gate: its old content (null: created) and the blob hashes. */
export interface GatedWrite {
  path: string;
  before: string | null;
  beforeHash: string | null;
  afterHash: string;
}

/** What a write through the gate did: the files written, and those kept as the user changed them. */
export interface GatedWrites {
  written: GatedWrite[];
  kept: string[];
}

/**
 * Writes a model's files through the gate: each refusal is recorded as `write.refused`, each
 * allowed file is written and its old and new contents stored as blobs. A file the user changed
 * since the run last read or wrote it is merged with the user's change, or kept as the user left
 * it (`writeOverUserEdits`). The Coder's attempts and the gates' repair pass both write this way;
 * the caller records `files.written`, then stops on a kept file.
 */
export async function writeThroughGate(
  ctx: { deps: Pick<PipelineDeps, 'workspace'>; log: RunLog; manifest: Manifest },
  attempt: number,
  files: CoderFile[],
  options: { skipUnchanged?: boolean; by?: 'coder' | 'repair' } = {},
): Promise<GatedWrites> {
  const written: GatedWrite[] = [];
  const kept: string[] = [];
  for (const f of files) {
    const verdict = checkWrite(ctx.manifest, f.path);
    if (!verdict.ok) {
      await ctx.log.emit({ type: 'write.refused', attempt, path: verdict.path, reason: verdict.reason, detail: verdict.detail });
      continue;
    }
    const before = await ctx.deps.workspace.readFile(verdict.path);
    if (options.skipUnchanged && before === f.content) continue;
    // The last line of defence: whoever wrote the answer, elided code never reaches the disk.
    const elided = before === null ? undefined : findElision(before, f.content, ticketWords(ctx.manifest));
    if (elided) {
      await ctx.log.emit({
        type: 'write.refused',
        attempt,
        path: verdict.path,
        reason: 'elided',
        detail: describeElision(verdict.path, elided),
      });
      continue;
    }
    const result = await writeOverUserEdits(ctx, { path: verdict.path, content: f.content, by: options.by ?? 'coder', attempt });
    if (result.kept) {
      kept.push(verdict.path);
      continue;
    }
    const after = result.content ?? f.content;
    written.push({
      path: verdict.path,
      before,
      beforeHash: before === null ? null : await ctx.log.putBlob(before),
      afterHash: await ctx.log.putBlob(after),
    });
  }
  return { written, kept };
}
