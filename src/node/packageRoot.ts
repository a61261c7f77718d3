import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parsePackageJson } from '../core/schema/packageJson';

/** The installed package's root: dist/ holds the wasm files and the test reporter. */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && parsePackageJson(readFileSync(pkg, 'utf8')).name === 'ticket-runner') return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the ticket-runner package root');
    dir = up;
  }
}
