import { runMocha } from './mochaHost';

/** The entry of a host that also loads the ping test extension (test/vscode/pingExt): the responsiveness suite. */
export function run(): Promise<void> {
  return runMocha(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./responsive.test');
  });
}
