import { join } from 'node:path';
import { repoRoot } from './tempProject';

/** The built language worker, and the lib files beside it, as the run's wiring starts it. */
export const dist = join(repoRoot, 'dist');
export const script = join(dist, 'languageWorker.js');
export const libDir = join(dist, 'typescript-lib');

/** A small project's tsconfig: strict, bundler resolution, its sources under src/. */
export const tsconfig = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: true },
  include: ['src'],
});
