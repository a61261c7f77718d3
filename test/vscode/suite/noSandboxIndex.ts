import { runMocha } from './mochaHost';

/** The entry of a host started where the OS sandbox cannot start (no bwrap on its PATH). */
export function run(): Promise<void> {
  return runMocha(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./noSandbox.test');
  });
}
