/** Extensions a bare file name (no folder) must have to count as a path: code and its configuration. */
const FILE_EXTENSIONS = new Set([
  'ts',
  'tsx',
  'mts',
  'cts',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'json',
  'yaml',
  'yml',
  'md',
  'py',
  'go',
  'rs',
  'java',
  'kt',
  'rb',
  'cs',
  'css',
  'html',
  'sql',
  'toml',
]);

const CANDIDATE = /(?:^|[\s`'"(])((?:\.\/)?(?:[\w@.-]+\/)*[\w@-][\w@.-]*\.[A-Za-z][\w]*)(?=$|[\s`'"),:;!?]|\.(?:\s|$))/g;

/**
 * The workspace paths a task's words name (`src/models/user.ts`, `` `package.json` ``), in order,
 * each once: a folder and a file's extension, or a bare name with a code extension. A URL or a
 * version number is not one. These are scope candidates for the Drafter, not a scope.
 */
export function pathsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CANDIDATE)) {
    const path = m[1]!.replace(/^\.\//, '');
    const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
    if (/^\d/.test(path) || path.includes('//') || path.startsWith('..')) continue;
    if (!path.includes('/') && !FILE_EXTENSIONS.has(ext)) continue;
    if (!out.includes(path)) out.push(path);
  }
  return out;
}
