import { runMocha } from './mochaHost';

/** The entry the extension host calls with `extensionTestsPath`: the suites of a host with the OS sandbox. */
export function run(): Promise<void> {
  return runMocha(() => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    require('./extension.test');
    require('./safeWorkspace.test');
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
}
