import { runCli } from '../../src/cli/main';

/** Runs the CLI in process, as a user would from a shell, and keeps what it printed. */
export async function cli(args: string[], signal = new AbortController().signal): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (s) => out.push(s), err: (s) => err.push(s) }, signal);
  return { code, out: out.join('\n'), err: err.join('\n') };
}
