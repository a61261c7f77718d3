import * as vscode from 'vscode';
import { toDisposable, type IDisposable } from './dispose';

/**
 * The one bridge between the editor's cancellation and the core's: the core takes an
 * AbortSignal, the editor gives (and its APIs take) a CancellationToken.
 */

/** Aborts `controller` once `token` asks to cancel (a progress notification's Cancel); dispose the link when the work ends. */
export function abortOnCancel(token: vscode.CancellationToken | undefined, controller: AbortController): IDisposable {
  if (!token) return toDisposable(() => undefined);
  if (token.isCancellationRequested) controller.abort();
  return token.onCancellationRequested(() => controller.abort());
}

/** Runs `work` with a signal that aborts when `token` is cancelled. */
export async function withCancelSignal<T>(token: vscode.CancellationToken, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const link = abortOnCancel(token, controller);
  try {
    return await work(controller.signal);
  } finally {
    link.dispose();
  }
}

/** A token for an editor API, cancelled when `signal` aborts or by `cancel()` (a time limit). */
export interface LinkedToken extends IDisposable {
  readonly token: vscode.CancellationToken;
  cancel(): void;
}

/** The other way round: a token that follows `signal`; disposing it drops the listener. */
export function tokenFor(signal: AbortSignal): LinkedToken {
  const source = new vscode.CancellationTokenSource();
  const onAbort = () => source.cancel();
  if (signal.aborted) source.cancel();
  else signal.addEventListener('abort', onAbort, { once: true });
  return {
    token: source.token,
    cancel: () => source.cancel(),
    dispose: () => {
      signal.removeEventListener('abort', onAbort);
      source.dispose();
    },
  };
}
