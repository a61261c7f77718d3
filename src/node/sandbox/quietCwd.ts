import * as path from 'node:path';
import type { RuntimeWrapper, SandboxWrapper, WrapConfig } from './sandboxProtocol';
import { workspaceDenies } from './workspaceDenies';

/**
 * The sandbox runtime scans `process.cwd()` on every wrap: ripgrep, four levels down, for
 * dangerous names to deny writing to (`.git/hooks`, `.bashrc`, `.vscode`, ...). That protects a
 * command started in its project. Ours are not: the CLI is started anywhere and the editor's
 * extension host runs where VS Code was started, so the scan walked whatever folder that was.
 * From /tmp it cost about a second and a half a command; from `/` ripgrep runs into the
 * runtime's ten-second limit, on every test run.
 *
 * The workspace's own denies come from `workspaceDenies`. A deny outside every folder the
 * command may write is already read-only (the runtime mounts `/` read-only and only the
 * writable folders over it), so when the process's folder is outside all of them, the runtime
 * is pointed at a small folder of this package's, outside them too, for the length of the wrap.
 * Inside a writable folder the scan runs where it always did, and protects what it always did.
 */

/** Whether `dir` is `root` or below it. */
function within(dir: string, root: string): boolean {
  const rel = path.relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * `manager`'s wraps, one at a time (the pinned folder is the process's, and a wrap awaits), each
 * with the runtime's working folder moved to `quiet` when the real one is outside every writable
 * folder of its policy. `quiet` must exist; it is used only when it too is outside them. A wrap
 * given a workspace denies writing to its dangerous names too (`workspaceDenies`): this wrapper
 * runs in the runtime's worker thread, where ripgrep's start holds nothing of the run's.
 */
export function withQuietCwd(manager: RuntimeWrapper, quiet: string): SandboxWrapper {
  let queue: Promise<unknown> = Promise.resolve();
  const pinned = (config: WrapConfig): boolean => {
    const writable = config.filesystem.allowWrite.map((p) => path.resolve(p));
    return ![process.cwd(), quiet].some((dir) => writable.some((root) => within(path.resolve(dir), root)));
  };
  const wrapOne = async (command: string, binShell: string, config: WrapConfig, signal: AbortSignal, cwd: string) => {
    if (!pinned(config)) return manager.wrapWithSandboxArgv(command, binShell, config, signal, cwd);
    const own = Object.getOwnPropertyDescriptor(process, 'cwd');
    process.cwd = () => quiet;
    try {
      return await manager.wrapWithSandboxArgv(command, binShell, config, signal, cwd);
    } finally {
      // Put back as it was: the same function, and no own property where there was none.
      if (own) Object.defineProperty(process, 'cwd', own);
      else Reflect.deleteProperty(process, 'cwd');
    }
  };
  return {
    wrapWithSandboxArgv(command, binShell, given, signal, cwd, workspace) {
      // Found beside the other wraps, not in their line: only the pinned folder needs one at a time.
      const config = withDenies(given, workspace, signal);
      const turn = queue.then(async () => wrapOne(command, binShell, await config, signal, cwd));
      queue = turn.catch(() => undefined);
      return turn;
    },
    cleanupAfterCommand: () => manager.cleanupAfterCommand(),
  };
}

/** `config` with `workspace`'s own denies added to its write denies. */
async function withDenies(config: WrapConfig, workspace: string | undefined, signal: AbortSignal): Promise<WrapConfig> {
  if (workspace === undefined) return config;
  return {
    ...config,
    filesystem: { ...config.filesystem, denyWrite: [...config.filesystem.denyWrite, ...(await workspaceDenies(workspace, signal))] },
  };
}
