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
  /** The argv that runs `line` with `shell` under `config` from `cwd`. */
  z.object({ type: z.literal('wrap'), id: z.number().int(), line: z.string(), shell: z.string(), config: WrapConfig, cwd: z.string() }),
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

/** What `OsSandbox` asks of the runtime's manager: the runtime's own, or its worker thread's stand-in. */
export interface SandboxWrapper {
  wrapWithSandboxArgv(command: string, binShell: string, config: WrapConfig, signal: AbortSignal, cwd: string): Promise<{ argv: string[] }>;
  /** Settles once the runtime has done it (its mount points are gone unless another sandbox is live). */
  cleanupAfterCommand(): void | Promise<void>;
}
