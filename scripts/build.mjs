// Builds every target with esbuild, one context each, and copies the Tree-sitter
// runtime and grammars into dist/. `--watch` keeps the contexts alive.
import * as esbuild from 'esbuild';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyByRename, writeByRename } from './distFiles.cjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const dist = join(root, 'dist');
mkdirSync(dist, { recursive: true });

/**
 * esbuild hands over what it built, and each file goes into dist/ by rename (distFiles.cjs):
 * a product running from dist/ while it builds keeps its old files.
 * @type {esbuild.Plugin}
 */
const byRename = {
  name: 'by-rename',
  setup: (b) =>
    b.onEnd((result) => {
      for (const f of result.outputFiles ?? []) {
        mkdirSync(dirname(f.path), { recursive: true });
        writeByRename(f.path, f.contents);
      }
    }),
};

const common = {
  bundle: true,
  write: false,
  // jsonc-parser's main entry is UMD, whose inner require('./impl/...') calls a bundle cannot
  // follow (the bundle then throws at load): its ES module build bundles whole.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
};

/**
 * The views load in the editor's webviews, where every byte of script is paid on each panel's
 * first paint. zod re-exports all its locales as a namespace, twice (about half of zod in the bundle);
 * the views parse messages in English only, so the namespace holds English alone there.
 * @type {esbuild.Plugin}
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic[\\/]external|core[\\/]index)\.js$/.test(args.importer)
        ? { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};
const view = { ...common, platform: 'browser', format: 'iife', target: 'es2022', plugins: [zodEnglishOnly] };

/** @type {esbuild.BuildOptions[]} */
// The sandbox runtime is an ES module that finds its seccomp helper through import.meta.url;
// bundled as CommonJS, that URL is the bundle's own, and the helper is copied beside it.
const IMPORT_META_URL = "var __importMetaUrl = require('url').pathToFileURL(__filename).href;";
const esmInCjs = { define: { 'import.meta.url': '__importMetaUrl' } };

/**
 * One TypeScript for the extension and the ticket server: both load dist/typescript.js (built
 * once, below), so the .vsix carries it once rather than inside each bundle.
 */
const sharedTypescript = {
  name: 'shared-typescript',
  setup: (b) => b.onResolve({ filter: /^typescript$/ }, () => ({ path: './typescript.js', external: true })),
};

/** A package folder under the folder the test processes' NODE_PATH names (VENDORED_MODULES). */
const FAST_CHECK_DIR = 'vendor/modules/fast-check';

const targets = [
  // The extension host: CommonJS, with vscode provided by the editor.
  {
    ...common,
    ...esmInCjs,
    entryPoints: ['src/vscode/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [sharedTypescript],
    banner: { js: IMPORT_META_URL },
  },
  // The headless CLI. TypeScript stays external: its language service finds lib.d.ts beside typescript.js.
  {
    ...common,
    ...esmInCjs,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['typescript'],
    banner: { js: `#!/usr/bin/env node\n${IMPORT_META_URL}` },
  },
  // The ticket language server the extension's client starts over stdio: the extension's
  // TypeScript (the .vsix has no node_modules); its lib files are dist/typescript-lib.
  {
    ...common,
    entryPoints: ['src/lsp/main.ts'],
    outfile: 'dist/ticketServer.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [sharedTypescript],
  },
  // That one TypeScript, shared by the two.
  {
    ...common,
    entryPoints: ['node_modules/typescript/lib/typescript.js'],
    outfile: 'dist/typescript.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The node:test reporter the test runner adapter loads into the workspace's runs.
  {
    ...common,
    entryPoints: ['src/node/testRunners/nodeTestReporter.ts'],
    outfile: 'dist/nodeTestReporter.mjs',
    platform: 'node',
    format: 'esm',
    target: 'node20',
  },
  // Preloaded into the workspace's node:test and mocha runs: freezes the assertion library and node:test's API.
  {
    ...common,
    entryPoints: ['src/node/testRunners/testApisFrozen.ts'],
    outfile: 'dist/testApisFrozen.cjs',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
  },
  // Fills tsx's cache for a run's node:test and mocha processes, in the run's sandbox, running none of the files it compiles.
  {
    ...common,
    entryPoints: ['src/node/testRunners/tsxWarm.ts'],
    outfile: 'dist/tsxWarm.cjs',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
  },
  // Preloaded (NODE_OPTIONS) into the workspace's vitest and jest runs: freezes expect and chai before each test file.
  {
    ...common,
    entryPoints: ['src/node/testRunners/expectFrozen.mts'],
    outfile: 'dist/expectFrozen.mjs',
    platform: 'node',
    format: 'esm',
    target: 'node20',
  },
  // Ticket Runner's own fast-check, for the rendered properties of a workspace that has none (src/node/testRunners/propertyRuns.ts).
  {
    ...common,
    sourcemap: false,
    entryPoints: ['node_modules/fast-check/lib/cjs/fast-check.js'],
    outfile: `dist/${FAST_CHECK_DIR}/index.cjs`,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
  },
  // The lint worker EslintLinter starts in the run's sandbox: the workspace's ESLint loads there.
  {
    ...common,
    entryPoints: ['src/node/lint/eslintWorker.ts'],
    outfile: 'dist/eslintWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
  },
  // The type-check worker TscTypeCheck starts in the run's sandbox: the workspace's TypeScript loads there.
  {
    ...common,
    entryPoints: ['src/node/gates/tscServer.ts'],
    outfile: 'dist/tscServer.js',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
  },
  // The language service's worker thread (the CLI's, the ticket server's and the extension's): TypeScript's
  // synchronous work runs there, off their event loops. It loads the one dist/typescript.js; Tree-sitter for the ops.
  {
    ...common,
    ...esmInCjs,
    entryPoints: ['src/node/workers/languageWorker.ts'],
    outfile: 'dist/languageWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [sharedTypescript],
    banner: { js: IMPORT_META_URL },
  },
  // The sandbox runtime's worker thread: its start and its wraps wait on child processes synchronously.
  {
    ...common,
    ...esmInCjs,
    entryPoints: ['src/node/sandbox/sandboxWorker.ts'],
    outfile: 'dist/sandboxWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: IMPORT_META_URL },
  },
  // V8 coverage's worker thread: each process's coverage file is parsed, checked and read back through its source maps there.
  {
    ...common,
    ...esmInCjs,
    entryPoints: ['src/node/gates/coverageWorker.ts'],
    outfile: 'dist/coverageWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [sharedTypescript],
    banner: { js: IMPORT_META_URL },
  },
  // The baseline key's worker thread: the stamps of every installed file, off the run's thread.
  {
    ...common,
    entryPoints: ['src/node/workspace/fingerprintWorker.ts'],
    outfile: 'dist/fingerprintWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  // The webview app, for the browser.
  { ...view, entryPoints: ['webview-ui/main.ts'], outfile: 'dist/webview.js' },
  // The Run Statistics panel's app (its styles are the run webview's).
  { ...view, entryPoints: ['webview-ui/stats.ts'], outfile: 'dist/statsView.js' },
].filter((t) => existsSync(join(root, /** @type {string[]} */ (t.entryPoints)[0])));

const wasm = [
  ['node_modules/web-tree-sitter/web-tree-sitter.wasm', 'web-tree-sitter.wasm'],
  ['node_modules/tree-sitter-typescript/tree-sitter-typescript.wasm', 'tree-sitter-typescript.wasm'],
  ['node_modules/tree-sitter-typescript/tree-sitter-tsx.wasm', 'tree-sitter-tsx.wasm'],
];
for (const [from, to] of wasm) copyByRename(join(root, from), join(dist, to));

// TypeScript's lib.*.d.ts, for dist/typescript.js (the extension's and the ticket server's): the language service is told where they are (libDir).
mkdirSync(join(dist, 'typescript-lib'), { recursive: true });
for (const name of readdirSync(join(root, 'node_modules', 'typescript', 'lib'))) {
  if (/^lib\..*d\.ts$|^lib\.d\.ts$/.test(name))
    copyByRename(join(root, 'node_modules', 'typescript', 'lib', name), join(dist, 'typescript-lib', name));
}

// The sandbox runtime's helper that keeps sandboxed commands off Unix sockets (Linux, per architecture).
for (const arch of ['x64', 'arm64']) {
  const from = join(root, 'node_modules', '@anthropic-ai', 'sandbox-runtime', 'vendor', 'seccomp', arch, 'apply-seccomp');
  if (!existsSync(from)) continue;
  mkdirSync(join(dist, 'vendor', 'seccomp', arch), { recursive: true });
  copyByRename(from, join(dist, 'vendor', 'seccomp', arch, 'apply-seccomp'), 0o755);
}

// fast-check's package file and licence (the bundle is a target above): a package Node finds by its name.
if (existsSync(join(root, 'node_modules', 'fast-check'))) {
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules', 'fast-check', 'package.json'), 'utf8'));
  mkdirSync(join(dist, FAST_CHECK_DIR), { recursive: true });
  writeByRename(
    join(dist, FAST_CHECK_DIR, 'package.json'),
    `${JSON.stringify({ name: 'fast-check', version, main: 'index.cjs', types: 'fast-check.d.ts' }, null, 2)}\n`,
  );
  copyByRename(join(root, 'node_modules', 'fast-check', 'LICENSE'), join(dist, FAST_CHECK_DIR, 'LICENSE'));
  // Its types, so that the type check of a rendered property sees them (src/node/diagnostics/ownFastCheckTypes.ts):
  // they import pure-rand's, which are copied beside them and imported by a relative path.
  const pureRand = [join(root, 'node_modules', 'fast-check', 'node_modules', 'pure-rand'), join(root, 'node_modules', 'pure-rand')].find(
    (d) => existsSync(d),
  );
  const types = readFileSync(join(root, 'node_modules', 'fast-check', 'lib', 'cjs', 'fast-check.d.ts'), 'utf8');
  writeByRename(
    join(dist, FAST_CHECK_DIR, 'fast-check.d.ts'),
    types.replace(/from "pure-rand\/types\/(\w+)"/g, 'from "./pure-rand/types/$1.js"'),
  );
  for (const sub of ['', 'types']) {
    const from = join(pureRand, 'lib', sub);
    mkdirSync(join(dist, FAST_CHECK_DIR, 'pure-rand', sub), { recursive: true });
    for (const f of readdirSync(from).filter((n) => n.endsWith('.d.ts')))
      copyByRename(join(from, f), join(dist, FAST_CHECK_DIR, 'pure-rand', sub, f));
  }
}

// The webview's icon font: vscode-elements finds it through the page's codicon stylesheet.
mkdirSync(join(dist, 'codicons'), { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) {
  const from = join(root, 'node_modules', '@vscode', 'codicons', 'dist', f);
  if (existsSync(from)) copyByRename(from, join(dist, 'codicons', f));
}

const contexts = await Promise.all(targets.map((t) => esbuild.context({ ...t, plugins: [...(t.plugins ?? []), byRename] })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  if (existsSync(join(dist, 'cli.js'))) chmodSync(join(dist, 'cli.js'), 0o755);
}
