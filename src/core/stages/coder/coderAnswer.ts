/**
 * The Coder answers with whole files, each in a fenced block whose info string names
 * the path:
 *
 *     ```ts file=src/handlers/posts.ts
 *     ...the whole new content...
 *     ```
 *
 * Whole files keep the write gate and rollback simple and make every attempt replayable.
 */
export interface CoderFile {
  path: string;
  content: string;
}

const BLOCK = /^```[\w.+-]*[ \t]+file=("?)([^\s"]+)\1[^\n]*\n([\s\S]*?)^```[ \t]*$/gm;

export function parseCoderAnswer(text: string): CoderFile[] {
  const files: CoderFile[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const path = m[2] ?? '';
    const content = m[3] ?? '';
    // A later block for the same path wins: the model revised it within one answer.
    const prior = files.findIndex((f) => f.path === path);
    if (prior >= 0) files.splice(prior, 1);
    files.push({ path, content });
  }
  return files;
}

export function renderCoderFile(path: string, content: string): string {
  const lang = path.split('.').pop() ?? '';
  return '```' + lang + ' file=' + path + '\n' + content + (content.endsWith('\n') ? '' : '\n') + '```';
}
