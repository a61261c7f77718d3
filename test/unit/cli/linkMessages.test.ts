import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import {
  BATCH_LINK_VAR,
  BATCH_SLOT_VAR,
  ChildMessage,
  LinkMessageError,
  ParentMessage,
  readLinkMessage,
  SlotInbox,
  type SlotOrder,
} from '../../../src/cli/batch/linkMessages';
import { openLink } from '../../../src/cli/batch/parentLink';
import type { ModelPort } from '../../../src/core/ports/model';

/** A ticket's process as the link sees it, with no process behind it: what it sends and writes is kept. */
function fakeProcess(slot: boolean) {
  const proc = Object.assign(new EventEmitter(), {
    env: { [BATCH_LINK_VAR]: '1', ...(slot ? { [BATCH_SLOT_VAR]: '1' } : {}) },
    sent: [] as unknown[],
    written: [] as string[],
    stdout: new EventEmitter(),
    stderr: Object.assign(new EventEmitter(), { write: (s: string) => proc.written.push(s) }),
    send: (m: unknown) => proc.sent.push(m),
    channel: undefined,
  });
  return proc;
}

const model: ModelPort = {
  info: { provider: 'scripted', model: 'test', scripted: true },
  complete: () => Promise.reject(new Error('the batch never allowed this call')),
};

describe("the batch link's messages, parsed as they arrive", () => {
  it('gives back a message that fits, typed', () => {
    const m = readLinkMessage(ChildMessage, { type: 'call/release', permit: 3, costUsd: 0.02 }, 'the process of a slot (pid 1)');
    assert.deepEqual(m, { type: 'call/release', permit: 3, costUsd: 0.02 });
  });

  it('names the sender, the type it claimed and what is wrong, instead of dropping the message', () => {
    assert.throws(
      () => readLinkMessage(ChildMessage, { type: 'ticket/done', code: 'passed' }, "the process of BLOG-1's slot (pid 4242)"),
      (err: unknown) =>
        err instanceof LinkMessageError &&
        /^the process of BLOG-1's slot \(pid 4242\) sent a "ticket\/done" message that does not fit the batch link: code: /.test(
          err.message,
        ),
    );
    assert.throws(
      () => readLinkMessage(ParentMessage, { type: 'call/granted', id: 1, permit: 2, extra: true }, 'the batch'),
      /the batch sent a "call\/granted" message .*extra/,
    );
    assert.throws(
      () => readLinkMessage(ParentMessage, { type: 'call/maybe', id: 1 }, 'the batch'),
      /the batch sent a "call\/maybe" message that does not fit the batch link: type: /,
    );
    assert.throws(() => readLinkMessage(ParentMessage, 'hello', 'the batch'), /the batch sent a string that does not fit/);
    assert.throws(() => readLinkMessage(ParentMessage, null, 'the batch'), /the batch sent null that does not fit/);
  });

  it('a slot hears both the answers to its calls and its next ticket', () => {
    const order: SlotOrder = { type: 'ticket/run', argv: ['run', '.tickets/BLOG-1.ticket.json'], cwd: '/w' };
    assert.deepEqual(readLinkMessage(SlotInbox, order, 'the batch'), order);
    assert.equal(readLinkMessage(SlotInbox, { type: 'call/granted', id: 1, permit: 1 }, 'the batch').type, 'call/granted');
    assert.throws(() => readLinkMessage(SlotInbox, { type: 'ticket/run', argv: [], cwd: '/w' }, 'the batch'), /argv/);
  });

  it('a call waiting for its permit ends with the error of an answer that does not fit, which is also said on stderr', async () => {
    const proc = fakeProcess(false);
    const link = openLink(proc as unknown as NodeJS.Process);
    assert.ok(link);
    const call = link.wrap(model, 'k').complete({ role: 'coder', attempt: 1, system: '', messages: [] }, new AbortController().signal);
    assert.deepEqual(proc.sent, [{ type: 'call/acquire', id: 1, key: 'k', maxCostUsd: null }]);
    proc.emit('message', { type: 'call/granted', id: 1, permit: 'one' });
    await assert.rejects(
      call,
      (err: unknown) =>
        err instanceof LinkMessageError &&
        /the batch sent a "call\/granted" message that does not fit the batch link: permit:/.test(err.message),
    );
    assert.match(proc.written.join(''), /^ticket-runner: the batch sent a "call\/granted" message/);
  });

  it('a slot gets its orders through the link, and an unreadable message as an error it can answer', () => {
    const proc = fakeProcess(true);
    const link = openLink(proc as unknown as NodeJS.Process);
    assert.ok(link);
    const heard: (SlotOrder | LinkMessageError)[] = [];
    link.onOrder((o) => heard.push(o));
    proc.emit('message', { type: 'ticket/run', argv: ['run', 'x.ticket.json'], cwd: '/w' });
    proc.emit('message', { type: 'ticket/run', cwd: '/w' });
    assert.deepEqual(heard[0], { type: 'ticket/run', argv: ['run', 'x.ticket.json'], cwd: '/w' });
    assert.ok(heard[1] instanceof LinkMessageError && /argv/.test(heard[1].message));
    assert.equal(heard.length, 2);
  });
});
