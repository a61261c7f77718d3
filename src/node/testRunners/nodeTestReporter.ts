/**
 * A node:test reporter, loaded by `node --test --test-reporter=<this file, bundled>` in the
 * workspace's test process. Writes one JSON line per test (NodeTestRecord), then an end line.
 * Bundled on its own to dist/nodeTestReporter.mjs: it must not import anything that needs the
 * extension's runtime.
 */
import type { TestEvent } from 'node:test/reporters';
import type { NodeTestRecord } from './nodeTestRecord';
import { showValue } from './showValue';

type Finished = Extract<TestEvent, { type: 'test:pass' | 'test:fail' }>['data'];

const STDERR_TAIL = 2000;
const STACK_LINES = 20;

export default async function* nodeTestReporter(source: AsyncIterable<TestEvent>): AsyncGenerator<string, void> {
  // Names of the tests running now at each nesting level, per file: a test's full name is its
  // ancestors' names and its own. test:start comes in report order, just before its result.
  const running = new Map<string, string[]>();
  // A file that fails to load reports only "test failed"; its stderr says why.
  const stderr = new Map<string, string>();
  for await (const event of source) {
    switch (event.type) {
      case 'test:start': {
        const names = running.get(event.data.file ?? '') ?? [];
        names.length = event.data.nesting;
        names.push(event.data.name);
        running.set(event.data.file ?? '', names);
        break;
      }
      case 'test:stderr': {
        const file = event.data.file ?? '';
        stderr.set(file, ((stderr.get(file) ?? '') + event.data.message).slice(-STDERR_TAIL));
        break;
      }
      case 'test:pass':
      case 'test:fail': {
        const ancestors = (running.get(event.data.file ?? '') ?? []).slice(0, event.data.nesting);
        const record = toRecord(event.type === 'test:fail', event.data, ancestors, stderr.get(event.data.file ?? ''));
        if (record) yield `${JSON.stringify(record)}\n`;
        break;
      }
      default:
        break;
    }
  }
  yield `${JSON.stringify({ type: 'end' } satisfies NodeTestRecord)}\n`;
}

function toRecord(failed: boolean, data: Finished, ancestors: string[], stderr: string | undefined): NodeTestRecord | undefined {
  const error = failed && 'error' in data.details ? data.details.error : undefined;
  const cause = rootCause(error);
  // A suite's own result repeats its tests' results, unless something of its own (a hook) failed.
  if (data.details.type === 'suite' && (!failed || failureType(error) === 'subtestsFailed')) return undefined;
  const record: NodeTestRecord = {
    type: 'test',
    name: [...ancestors, data.name].join(' > '),
    status: failed ? 'failed' : isSet(data.skip) || isSet(data.todo) ? 'skipped' : 'passed',
    durationMs: data.details.duration_ms,
  };
  if (data.file) record.file = data.file;
  if (!failed) return record;
  let message = cause?.message ?? error?.message ?? 'failed';
  if (data.name === data.file && stderr) message = `${message}\n${stderr.trim()}`;
  record.message = message;
  if (cause?.stack) record.stack = cause.stack.split('\n').slice(0, STACK_LINES).join('\n');
  if (isAssertionError(cause)) {
    record.expected = showValue(cause.expected);
    record.actual = showValue(cause.actual);
  }
  return record;
}

/** node:test wraps what the test threw in an ERR_TEST_FAILURE whose cause is the real error. */
function rootCause(error: Error | undefined): Error | undefined {
  const cause: unknown = error?.cause;
  return cause instanceof Error || (isObject(cause) && typeof cause.message === 'string') ? (cause as Error) : error;
}

function failureType(error: Error | undefined): unknown {
  return isObject(error) ? error.failureType : undefined;
}

function isAssertionError(error: Error | undefined): error is Error & { expected: unknown; actual: unknown } {
  return isObject(error) && (error.code === 'ERR_ASSERTION' || error.name === 'AssertionError') && 'expected' in error;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isSet(flag: string | boolean | undefined): boolean {
  return flag !== undefined && flag !== false;
}
