import { z } from 'zod';

/**
 * The messages between the sandbox runtime's worker thread (`sandboxWorker.ts`) and its caller
 * (`WorkerManager`, `sandboxThread.ts`). Each side parses what the other posts with these schemas:
 * the two are separate builds, and a mismatch is an error, never an argv believed.
 */

/** The policy of one command, as `OsSandbox.wrap` gives it to the runtime. */
export const WrapConfig = z.object({
  network: z.object({ allowedDomains: z.array(z.string()), deniedDomains: z.array(z.string()) }),
  filesystem: z.object({ denyRead: z.array(z.string()), allowWrite: z.array(z.string()), denyWrite: z.array(z.string()) }),
});
export type WrapConfig = z.infer<typeof WrapConfig>;

export const ToSandbox = z.discriminatedUnion('type', [
  /** The argv that runs `line` with `shell` under `config` from `cwd`, with `workspace`'s own denies added (`workspaceDenies`). */
  z.object({
    type: z.literal('wrap'),
    id: z.number().int(),
    line: z.string(),
    shell: z.string(),
    config: WrapConfig,
    cwd: z.string(),
    workspace: z.string().optional(),
  }),
  /** The caller's signal aborted the wrap `id`. */
  z.object({ type: z.literal('cancel'), id: z.number().int() }),
  /** The runtime drops what it keeps about the last command (`cleanupAfterCommand`), then says `cleaned`. */
  z.object({ type: z.literal('afterCommand'), id: z.number().int() }),
]);
export type ToSandbox = z.infer<typeof ToSandbox>;

export const FromSandbox = z.discriminatedUnion('type', [
  /** The runtime loaded, checked its tools and ran one command (`off` says why it cannot). */
  z.object({ type: z.literal('started'), off: z.string().optional() }),
  z.object({ type: z.literal('wrapped'), id: z.number().int(), argv: z.array(z.string()).min(1) }),
  z.object({ type: z.literal('failed'), id: z.number().int(), message: z.string() }),
  /** The runtime dropped what it kept for `afterCommand` `id`: its mount points are gone unless another sandbox is live. */
  z.object({ type: z.literal('cleaned'), id: z.number().int() }),
]);
export type FromSandbox = z.infer<typeof FromSandbox>;

/** The sandbox runtime's own manager, as far as it is used here. */
export interface RuntimeWrapper {
  wrapWithSandboxArgv(command: string, binShell: string, config: WrapConfig, signal: AbortSignal, cwd: string): Promise<{ argv: string[] }>;
  cleanupAfterCommand(): void | Promise<void>;
}

/** What `OsSandbox` asks of the runtime: its worker thread's stand-in, or (in that thread) the runtime behind `withQuietCwd`. */
export interface SandboxWrapper {
  /**
   * `workspace`: a folder whose dangerous names (git hooks, `.vscode`, nested repositories) the
   * wrap denies writing to as well (`workspaceDenies`); found where the wrap runs, since finding
   * them starts ripgrep, and a child process's start holds its thread (about 20 ms idle, over
   * 80 ms on a busy machine: fork and exec are waited for).
   */
  wrapWithSandboxArgv(
    command: string,
    binShell: string,
    config: WrapConfig,
    signal: AbortSignal,
    cwd: string,
    workspace?: string,
  ): Promise<{ argv: string[] }>;
  /** Settles once the runtime has done it (its mount points are gone unless another sandbox is live). */
  cleanupAfterCommand(): void | Promise<void>;
}
