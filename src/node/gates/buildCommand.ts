import { CancelledError } from '../../core/errors';
import type { BuildPort, BuildResult } from '../../core/ports/gates';
import { ProcessJail } from '../sandbox/processJail';

/**
 * BuildPort: the workspace's build command line, through the platform's shell, in its own
 * process group with a time limit; on timeout or cancel the whole group is killed.
 */
export class ShellBuild implements BuildPort {
  private readonly jail: ProcessJail;

  constructor(
    private readonly root: string,
    jail?: ProcessJail,
  ) {
    this.jail = jail ?? ProcessJail.plain(root);
  }

  async run(command: string, timeoutMs: number, signal: AbortSignal): Promise<BuildResult> {
    const [shell, args] = process.platform === 'win32' ? ['cmd.exe', ['/d', '/s', '/c', command]] : ['/bin/sh', ['-c', command]];
    const run = await this.jail.run(shell, args, { cwd: this.root, timeoutMs, signal, tailChars: 8000 });
    if (run.stopped === 'abort') throw new CancelledError('build cancelled');
    if (run.spawnError)
      return {
        status: 'error',
        exitCode: null,
        output: `${run.output}\n[ticket-runner] could not start ${shell}: ${run.spawnError.message}`,
        durationMs: run.durationMs,
      };
    if (run.stopped === 'timeout')
      return {
        status: 'timeout',
        exitCode: null,
        output: `${run.output}\n[ticket-runner] killed after ${timeoutMs} ms, with its process group`,
        durationMs: run.durationMs,
      };
    return { status: run.exitCode === 0 ? 'passed' : 'failed', exitCode: run.exitCode, output: run.output, durationMs: run.durationMs };
  }
}
