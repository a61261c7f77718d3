/**
 * The lint worker: a process of its own that loads the workspace's ESLint, config and plugins
 * (code the workspace controls), started by EslintLinter through the run's ProcessJail, so it
 * runs in the OS sandbox with the allowlisted environment. It reads one JSON request per line
 * on stdin and answers each with one JSON line on stdout (the protocol is `lintProtocol.ts`).
 * It lives for the run, so ESLint and its plugins load once; a request finds it stale, and
 * asks to be replaced, when a file it loaded from outside node_modules (the config, a local
 * rule) changed since.
 */
import { statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { requestFields } from '../sandbox/requestLine';
import type { LintAnswer, LintRequest } from './lintProtocol';

const answer = process.stdout.write.bind(process.stdout);
// What a config or plugin prints goes to stderr, never among the answers.
process.stdout.write = process.stderr.write.bind<typeof process.stdout.write>(process.stderr);
console.log = console.info = console.debug = console.error;

/** Files loaded from outside any node_modules, with their stamp (mtime and size) when first seen. */
const loaded = new Map<string, string>();

function stamp(file: string): string {
  try {
    const st = statSync(file);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return 'missing';
  }
}

function track(file: string): void {
  if (/[\\/]node_modules[\\/]/.test(file) || loaded.has(file)) return;
  loaded.set(file, stamp(file));
}

/** CommonJS files (a legacy .eslintrc.js, a plugin of the workspace) are in require's cache. */
function trackRequired(): void {
  for (const file of Object.keys(require.cache)) track(file);
}

// ES modules: a resolve hook in the loader's thread tells this one every URL it resolves.
// Without module.register (Node before 20.6), a changed local ES module imported by the config
// goes unnoticed until the run ends; the config file itself ESLint reloads on change anyway.
const register = (nodeModule as { register?: (url: string, o: unknown) => void }).register;
if (register) {
  const { port1, port2 } = new MessageChannel();
  port1.on('message', (url: string) => {
    if (url.startsWith('file:')) track(fileURLToPath(url.replace(/[?#].*$/, '')));
  });
  port1.unref();
  const hooks = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });
}

/** The slice of ESLint's Node API this uses; the workspace's ESLint may be 8 or 9. */
interface ESLintInstance {
  lintFiles(
    patterns: string[],
  ): Promise<
    { filePath: string; messages: { ruleId: string | null; severity: number; message: string; line?: number; column?: number }[] }[]
  >;
}
type ESLintClass = new (options: Record<string, unknown>) => ESLintInstance;
interface ESLintModule {
  loadESLint?: (options: { useFlatConfig: boolean }) => Promise<ESLintClass>;
  ESLint?: ESLintClass;
}

async function lint(r: LintRequest): Promise<LintAnswer> {
  trackRequired();
  const changed = [...loaded].find(([file, was]) => stamp(file) !== was);
  if (changed) return { id: r.id, restart: changed[0] };
  try {
    const mod = nodeModule.createRequire(`${r.cwd}/package.json`)(r.eslintPath) as ESLintModule;
    // loadESLint (8.57+) picks the flat or the legacy class; older versions only have the legacy one.
    const ESLint = mod.loadESLint ? await mod.loadESLint({ useFlatConfig: r.flat }) : mod.ESLint;
    if (!ESLint) throw new Error(`${r.eslintPath} does not export ESLint`);
    // The legacy class rejects options it does not know, such as warnIgnored.
    const eslint = new ESLint(
      r.flat ? { cwd: r.cwd, errorOnUnmatchedPattern: false, warnIgnored: false } : { cwd: r.cwd, errorOnUnmatchedPattern: false },
    );
    const results = await eslint.lintFiles(r.files);
    trackRequired();
    return {
      id: r.id,
      results: results.map((x) => ({
        filePath: x.filePath,
        messages: x.messages.map((m) => ({ ruleId: m.ruleId, severity: m.severity, message: m.message, line: m.line, column: m.column })),
      })),
    };
  } catch (err) {
    return { id: r.id, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * A line of stdin as a request. Only the linter writes here, so this is a plain check rather
 * than the protocol's zod schema: the worker stays a few kilobytes and starts fast (zod is
 * for what the worker writes back, checked by the linter). A line that is no request is
 * answered with an error, under its id when it has one.
 */
function asRequest(line: string): LintRequest | Extract<LintAnswer, { error: string }> {
  const o = requestFields(line);
  const files = o.files;
  if (
    typeof o.id === 'number' &&
    typeof o.eslintPath === 'string' &&
    typeof o.flat === 'boolean' &&
    typeof o.cwd === 'string' &&
    Array.isArray(files) &&
    files.every((f) => typeof f === 'string')
  ) {
    return { id: o.id, eslintPath: o.eslintPath, flat: o.flat, cwd: o.cwd, files };
  }
  return {
    id: typeof o.id === 'number' ? o.id : 0,
    error: `the lint worker got something that is not a lint request: ${line.slice(0, 200)}`,
  };
}

// One request at a time: the linter waits for each answer before it sends the next.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(async () => {
    const request = asRequest(line);
    answer(`${JSON.stringify('error' in request ? request : await lint(request))}\n`);
  });
});
process.stdin.on('end', () => process.exit(0));
