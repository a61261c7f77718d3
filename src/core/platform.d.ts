/**
 * The slice of the web platform the core relies on: cancellation and timers, which every
 * JavaScript runtime the product runs in (Node, the extension host, a browser) provides. The
 * core's tsconfig has no DOM and no node types, so that nothing else of a host can creep in;
 * this file names exactly what it may use. Other layers never include it: they see the core
 * through its declaration output and bring their own, richer, definitions.
 */

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

// A global value is declared with `var` in a declaration file (as lib.dom.d.ts does).
// eslint-disable-next-line no-var
declare var AbortController: { new (): AbortController };

type TimerHandle = { readonly __timer: unique symbol } | number;

declare function setTimeout(handler: () => void, ms?: number): TimerHandle;
declare function clearTimeout(handle: TimerHandle | undefined): void;
declare function setInterval(handler: () => void, ms?: number): TimerHandle;
declare function clearInterval(handle: TimerHandle | undefined): void;
