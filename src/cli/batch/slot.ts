import { errorMessage } from '../../core/errors';
import { EXIT } from '../exitCodes';
import { LinkMessageError, type ChildMessage } from './linkMessages';
import { parentLink } from './parentLink';

/** How a slot runs one ticket: the CLI's own `main`, with the ticket's own cancel. */
export type RunTicketArgv = (argv: string[], signal: AbortSignal) => Promise<number>;

/**
 * A batch's slot: this process runs the tickets the batch sends, one at a time, each exactly as
 * `ticket-runner run` would (the same argv, through the same main), each with its own cancel.
 * Between tickets nothing of a run is kept: every run wires its own dependencies and releases
 * them, as the editor's window does for its runs. Only the modules stay loaded.
 *
 * Signals are the single run's: the first SIGINT or SIGTERM cancels the ticket under way (the
 * run records it) and the slot takes no other; a second one exits at once. A batch that is gone
 * cancels the ticket under way; an idle slot then exits.
 */
export function serveSlot(runTicket: RunTicketArgv, codeFor: (sig: NodeJS.Signals) => number, say: (line: string) => void): void {
  const link = parentLink();
  if (!link || !process.send) throw new Error('a batch slot needs the IPC channel of the batch that started it');
  const send = process.send.bind(process);
  const tell = (m: ChildMessage) => void send(m, undefined, undefined, () => undefined);
  let current: AbortController | undefined;
  let stoppedBy: NodeJS.Signals | undefined;
  let gone = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stoppedBy) process.exit(codeFor(sig));
    stoppedBy = sig;
    say(`ticket-runner: ${sig}: cancelling (the run records it)…`);
    current?.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  link.onGone(() => {
    gone = true;
    if (!current) process.exit(0);
    say('ticket-runner: the batch that started this run is gone: cancelling (the run records it)…');
    current.abort();
  });
  link.onOrder((order) => {
    // One ticket at a time: the batch never sends a second before the first is done. A message
    // that could not be read (the link said why) may have been a ticket: an idle slot answers it
    // as failed, so the batch does not wait for it.
    if (order instanceof LinkMessageError) return current ? undefined : tell({ type: 'ticket/done', code: EXIT.error });
    if (current) return tell({ type: 'ticket/done', code: EXIT.error });
    const controller = new AbortController();
    current = controller;
    if (stoppedBy) controller.abort();
    void (async () => {
      let code: number;
      try {
        process.chdir(order.cwd);
        code = await runTicket(order.argv, controller.signal);
      } catch (err) {
        say(`ticket-runner: ${errorMessage(err)}`);
        code = EXIT.error;
      }
      current = undefined;
      tell({ type: 'ticket/done', code: stoppedBy ? codeFor(stoppedBy) : code });
      if (gone) process.exit(0);
    })();
  });
  tell({ type: 'slot/ready' });
}
