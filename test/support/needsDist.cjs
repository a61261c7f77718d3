// The tiers that start the product's own processes (the CLI, the extension, the workers) run
// what `npm run build` wrote to dist/. `npm test` builds once, first; a tier run on its own
// after a change to src/ would otherwise test the old build, and say nothing about it.
const { readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const built = path.join(root, 'dist', 'cli.js');

function newest(dir) {
  let latest = { file: '', mtimeMs: 0 };
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    const next = e.isDirectory() ? newest(p) : { file: p, mtimeMs: statSync(p).mtimeMs };
    if (next.mtimeMs > latest.mtimeMs) latest = next;
  }
  return latest;
}

let builtAt;
try {
  builtAt = statSync(built).mtimeMs;
} catch {
  throw new Error('dist/ is not built: run npm run build first (npm test does it for you)');
}
const changed = newest(path.join(root, 'src'));
if (changed.mtimeMs > builtAt) {
  throw new Error(`dist/ is older than ${path.relative(root, changed.file)}: run npm run build first (npm test does it for you)`);
}
