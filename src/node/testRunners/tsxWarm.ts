// Fills tsx's cache of compiled TypeScript for the files named, without running any of them.
// Built to dist/tsxWarm.cjs and started by TrustedTransforms (trustedTransforms.ts), in the
// run's sandbox, as `node tsxWarm.cjs [--v8-coverage] <tsx/cjs> <cache temp folder> <file>...` from the folder
// the tests run in (tsx reads the tsconfig there, and its cache key must be theirs).
//
// Each file goes through the loader tsx registers for its extension, as `require` would send
// it, but into a module whose `_compile` does nothing: tsx reads the file, compiles it (or finds
// it cached) and writes the result to its cache in the temp folder given. No file of the
// workspace runs here, so what the cache holds is the compiler's, not the code's.
import { realpathSync } from 'node:fs';
import Module from 'node:module';

type Loader = (module: Module, filename: string) => void;

const args = process.argv.slice(2);
// The tests will run under V8's coverage: tsx compiles differently there (it keeps the sources in
// its maps), and keys its cache by how it compiles. Its options are read as it loads; setting the
// variable now starts no coverage of this process, which node decides at its start.
const v8Coverage = args[0] === '--v8-coverage';
if (v8Coverage) args.shift();
const [tsxCjs, cacheTemp, ...files] = args;
if (!tsxCjs || !cacheTemp) {
  process.stderr.write('usage: tsxWarm.cjs [--v8-coverage] <tsx/cjs> <cache temp folder> <file>...\n');
  process.exit(2);
}
if (v8Coverage) process.env['NODE_V8_COVERAGE'] = cacheTemp;
// tsx places its cache in the temp folder it sees as it loads.
process.env['TMPDIR'] = cacheTemp;
process.env['TMP'] = cacheTemp;
process.env['TEMP'] = cacheTemp;
// Loaded by its path, as `--require` loads it into the test processes.
Module.createRequire(__filename)(tsxCjs);
const loaders = (Module as unknown as { _extensions: Record<string, Loader | undefined> })._extensions;
let failed = 0;
for (const file of files) {
  const loader = loaders[/\.[^./]+$/.exec(file)?.[0] ?? ''];
  if (!loader) continue;
  try {
    // The path a test process's `require` hands tsx: the real one.
    const real = realpathSync(file);
    const inert = new Module(real);
    inert.filename = real;
    (inert as unknown as { _compile: () => void })._compile = () => undefined;
    loader(inert, real);
  } catch {
    // A file that does not compile is compiled, and reported, by the test that loads it.
    failed++;
  }
}
// tsx writes its cache entries asynchronously: the process ends once they are written.
process.exitCode = failed === files.length && files.length > 0 ? 1 : 0;
