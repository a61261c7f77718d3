import { runMocha } from './mochaHost';

/** The entry of a host that also loads the fake-lm test extension (test/vscode/fakeLm): the vscode.lm suite. */
export function run(): Promise<void> {
  return runMocha(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./lm.test');
  });
}
