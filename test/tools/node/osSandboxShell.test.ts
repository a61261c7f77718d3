import assert from 'node:assert/strict';
import { OsSandbox } from '../../../src/node/sandbox/osSandbox';

/**
 * The sandbox runtime looks the shell up with `which`, which it gives one second: on a busy
 * machine that lookup times out and the runtime says the shell is not in PATH. The sandbox
 * asks again before it believes it; any other failure, and a shell that stays missing, still
 * fail the command. (A stand-in for the runtime's manager: the lookup's timing cannot be made
 * to fail on demand with the real one.)
 */
function managerFailing(times: number, message = "Shell 'sh' not found in PATH") {
  const calls = { n: 0 };
  const manager = {
    wrapWithSandboxArgv: async () => {
      calls.n++;
      if (calls.n <= times) throw new Error(message);
      return { argv: ['bwrap', '--', '/bin/sh', '-c', 'exec true'] };
    },
  };
  return { sandbox: new OsSandbox(manager as unknown as ConstructorParameters<typeof OsSandbox>[0]), calls };
}

const POLICY = { allowWrite: ['/tmp/ws'], denyWrite: [] };

describe('the OS sandbox: the shell lookup the runtime times out on a busy machine', () => {
  it('asks again when the shell was "not found", and wraps the command once it is', async () => {
    const { sandbox, calls } = managerFailing(2);
    assert.deepEqual(await sandbox.wrap('true', [], '/tmp/ws', POLICY, new AbortController().signal), [
      'bwrap',
      '--',
      '/bin/sh',
      '-c',
      'exec true',
    ]);
    assert.equal(calls.n, 3);
  });

  it('believes a shell that stays missing after four lookups, and never retries any other failure', async () => {
    const missing = managerFailing(Infinity);
    await assert.rejects(missing.sandbox.wrap('true', [], '/tmp/ws', POLICY, new AbortController().signal), /Shell 'sh' not found in PATH/);
    assert.equal(missing.calls.n, 4);
    const other = managerFailing(Infinity, 'bwrap: setting up uid map: Permission denied');
    await assert.rejects(other.sandbox.wrap('true', [], '/tmp/ws', POLICY, new AbortController().signal), /Permission denied/);
    assert.equal(other.calls.n, 1);
  });

  it('does not ask again once the run is cancelled', async () => {
    const { sandbox, calls } = managerFailing(Infinity);
    const cancel = new AbortController();
    cancel.abort();
    await assert.rejects(sandbox.wrap('true', [], '/tmp/ws', POLICY, cancel.signal), /not found in PATH/);
    assert.equal(calls.n, 1);
  });
});
