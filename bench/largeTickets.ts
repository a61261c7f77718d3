import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { importsOf, moduleName, modulePath, moduleSource } from './genRepo';

/**
 * One-module tickets for a generated repo, each with the script of a Coder that gets it right
 * on its first attempt and reviewers that pass it: the run's time is then the checks' and the
 * gates', never a second attempt's.
 */

export const largeTicketId = (i: number) => `LARGE-${i}`;
export const largeTicketPath = (i: number) => `.tickets/${largeTicketId(i)}.ticket.json`;
export const largeTicketTest = (i: number) => `test/ticket/${largeTicketId(i)}.test.ts`;

function ticket(i: number) {
  const n = moduleName(i);
  return {
    id: largeTicketId(i),
    title: `clamp${n} rejects NaN`,
    description: `clamp${n} passes NaN through, since Math.min and Math.max return NaN. It must throw a RangeError with the message 'value is NaN'; finite values keep clamping to [0, limit].`,
    scope: { write: [modulePath(i)], read: importsOf(i).map(modulePath) },
    acceptance: [
      { id: 'AC1', text: `clamp${n}(NaN) throws a RangeError 'value is NaN'` },
      { id: 'AC2', text: `clamp${n}(-5) is 0 and clamp${n}(1e9) is the default limit` },
    ],
    testPlan: {
      files: [
        {
          path: largeTicketTest(i),
          suite: `${largeTicketId(i)} clamp${n} NaN`,
          imports: [{ from: `../../${modulePath(i).replace(/\.ts$/, '')}`, names: [`clamp${n}`, `${n}_DEFAULTS`] }],
          cases: [
            {
              name: 'throws on NaN',
              criterion: 'AC1',
              expect: [{ kind: 'throws', call: `clamp${n}(Number.NaN)`, message: 'value is NaN' }],
            },
            {
              name: 'clamps finite values',
              criterion: 'AC2',
              expect: [
                { kind: 'equal', actual: `clamp${n}(-5)`, expected: '0' },
                { kind: 'equal', actual: `clamp${n}(1e9)`, expected: `${n}_DEFAULTS.limit` },
              ],
            },
          ],
        },
      ],
    },
  };
}

function script(i: number) {
  const clamp = 'return Math.min(options.limit, Math.max(0, value));';
  const fixed = moduleSource(i).replace(clamp, `if (Number.isNaN(value)) throw new RangeError('value is NaN');\n  ${clamp}`);
  const pass = (claim: string) => ({ id: 'AC1', covered: true, claim });
  return {
    coder: [{ expect: { attempt: 1 }, files: { [modulePath(i)]: fixed } }],
    debugger: [],
    reviewer: [{ expect: { attempt: 1 }, structured: { verdict: 'pass', blockers: [] } }],
    testReviewer: [
      {
        expect: { attempt: 1 },
        structured: {
          verdict: 'pass',
          criteria: [
            pass("'throws on NaN' calls the clamp with NaN and checks the RangeError's message"),
            { ...pass("'clamps finite values' checks a negative value and one above the limit"), id: 'AC2' },
          ],
        },
      },
    ],
  };
}

/** Writes ticket i and its script into the repo at `root`. */
export function writeLargeTicket(root: string, i: number): void {
  writeFileSync(path.join(root, largeTicketPath(i)), JSON.stringify(ticket(i), null, 2) + '\n');
  writeFileSync(path.join(root, '.tickets', `${largeTicketId(i)}.script.json`), JSON.stringify(script(i), null, 2) + '\n');
}
