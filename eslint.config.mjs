// @ts-check
import tseslint from 'typescript-eslint';

// Bare builtin names go in `paths` (exact match); as gitignore-style patterns they would
// also match a local module such as '../schema/events'.
const bareBuiltins = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'url', 'util', 'events', 'stream', 'http', 'https', 'net', 'worker_threads'];
const builtinPaths = (message) => bareBuiltins.map((name) => ({ name, message }));

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test/fixtures/**', '.vscode-test/**', '**/*.mjs', '**/*.cjs', '**/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The fence: the core is pure TypeScript and reaches the world only through its ports.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'vscode', message: 'src/core must not import vscode: add a port in src/core/ports.' },
          ...builtinPaths('src/core must not import Node built-ins: add a port in src/core/ports.'),
        ],
        patterns: [{ group: ['node:*'], message: 'src/core must not import Node built-ins: add a port in src/core/ports.' }],
      }],
    },
  },
  {
    // Node adapters and the CLI run outside the editor.
    files: ['src/node/**/*.ts', 'src/cli/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'Only src/vscode may import vscode.' }] }],
    },
  },
  {
    // The webview runs in a browser: it may share only the message protocol.
    files: ['webview-ui/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: 'The webview talks to the host through src/shared messages.' }, ...builtinPaths('webview-ui runs in a browser.')],
        patterns: [
          { group: ['**/src/core/**', '**/src/node/**', '**/src/vscode/**', '**/src/cli/**'], message: 'webview-ui may import only src/shared.' },
          { group: ['node:*'], message: 'webview-ui runs in a browser.' },
        ],
      }],
    },
  },
);
