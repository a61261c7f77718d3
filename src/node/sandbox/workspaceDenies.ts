import { lstatSync } from 'node:fs';
import * as path from 'node:path';
import { isInside, workspacePath } from '../workspacePaths';

/** How deep below the workspace the scan looks for nested repositories and dangerous names: the runtime's own depth. */
const SCAN_DEPTH = 3;

/**
 * The sandbox runtime's mandatory write denies (`.git/hooks`, `.git/config`, a `.git` that is a
 * file, `.gitmodules`, `.bashrc` and the other dangerous files, `.vscode`, `.idea`, ...) of the
 * workspace `root` and of every folder below it that holds one of those names (a nested
 * repository, a package's `.vscode`), down to the runtime's depth. The runtime resolves its own
 * list against `process.cwd()`, and neither the CLI nor the extension host runs in the
 * workspace: without these, a command could plant a git hook or a `core.fsmonitor` that runs
 * outside any sandbox at the user's next commit or `git status`.
 */
export async function workspaceDenies(root: string, signal: AbortSignal): Promise<string[]> {
  const linux = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js');
  const places = new Set([root, ...(await placesBelow(root, signal))]);
  // Only what is there. For an absent path the runtime makes a placeholder in the workspace (an
  // empty file or folder to mount over) and removes it only once no sandbox of this process is
  // live: the lint worker lives for the run, so they would stay in the user's tree, and the
  // side-effect guard would see them come and go. A hook or task written where there was none
  // is the side-effect guard's to find after a test run (`runsCodeLater`).
  const found = [...places].flatMap((dir) => atCwd(dir, () => linux.linuxGetCwdMandatoryDenyPaths(false)));
  return [...new Set(found)].filter((p) => lstatSync(p, { throwIfNoEntry: false }) !== undefined);
}

/**
 * Where the sandbox runtime may have put mount points of its own inside `root`, relative to it:
 * its mandatory denies at the process's working folder, and the folders above them there. For a
 * process started in the workspace (a batch's slot, the CLI run from the project), the runtime
 * makes an empty file or folder at each one that is absent (`.vscode`, `.bashrc`, `.claude/`,
 * ...) for every wrap, and removes them only once no sandbox of the process is live. What is
 * found there while a sandbox runs was made by the runtime: a sandboxed command cannot write
 * those paths. Linux only; sandbox-exec makes none.
 */
export async function runtimeMountPoints(root: string): Promise<string[]> {
  if (process.platform !== 'linux') return [];
  const linux = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js');
  const cwd = process.cwd();
  const at = new Set<string>();
  for (let p of linux.linuxGetCwdMandatoryDenyPaths(false)) {
    for (; p !== cwd && p.startsWith(cwd + path.sep); p = path.dirname(p)) at.add(p);
  }
  return [...at].filter((p) => p !== root && isInside(root, p)).map((p) => workspacePath(root, p));
}

/**
 * The folders below `root` (node_modules aside) that hold a dangerous name or a repository of
 * their own, found as the runtime finds them: ripgrep over the tree with the runtime's names.
 * What ripgrep listed before it failed counts; without ripgrep (macOS) the root's own denies stay.
 */
async function placesBelow(root: string, signal: AbortSignal): Promise<string[]> {
  const { DANGEROUS_FILES, getDangerousDirectories } = await import('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js');
  const { ripGrep, RipgrepError } = await import('@anthropic-ai/sandbox-runtime/dist/utils/ripgrep.js');
  const names = [...DANGEROUS_FILES, ...getDangerousDirectories().map((d) => d.split('/')[0]!), '.git'];
  const globs = [
    ...DANGEROUS_FILES.flatMap((f) => ['--iglob', f]),
    ...getDangerousDirectories().flatMap((d) => ['--iglob', `**/${d}/**`]),
    '--iglob',
    '**/.git/HEAD',
    '--iglob',
    '**/.git/hooks/**',
    '--iglob',
    '**/.git/config',
  ];
  let listed: string[];
  try {
    listed = await ripGrep(
      ['--files', '--hidden', '--no-ignore', '--no-config', '--max-depth', String(SCAN_DEPTH + 2), ...globs, '-g', '!**/node_modules/**'],
      root,
      signal,
    );
  } catch (err) {
    signal.throwIfAborted();
    listed = err instanceof RipgrepError ? err.listed : [];
  }
  const lower = new Set(names.map((n) => n.toLowerCase()));
  const places: string[] = [];
  for (const file of listed) {
    const segments = path.relative(root, path.resolve(root, file)).split(path.sep);
    // The folder that holds the first dangerous name on the way down.
    const at = segments.findIndex((s) => lower.has(s.toLowerCase()));
    if (at > 0 && at <= SCAN_DEPTH) places.push(path.join(root, ...segments.slice(0, at)));
  }
  return places;
}

/**
 * Runs the runtime's cwd-relative function as if `dir` were the process's working directory.
 * The function reads `process.cwd()` and is synchronous: nothing else runs while it is pinned,
 * and the process's real working directory never changes (the extension host shares it).
 */
function atCwd<T>(dir: string, f: () => T): T {
  // Put back as it was: the same function, never a bound copy, and no own property where there was none.
  const own = Object.getOwnPropertyDescriptor(process, 'cwd');
  process.cwd = () => dir;
  try {
    return f();
  } finally {
    if (own) Object.defineProperty(process, 'cwd', own);
    else Reflect.deleteProperty(process, 'cwd');
  }
}
