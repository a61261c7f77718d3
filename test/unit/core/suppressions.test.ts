import assert from 'node:assert/strict';
import { addedSuppressions } from '../../../src/core/stages/gates/suppressions';

describe('comments a change adds to hide its faults from a gate', () => {
  const before = ['// @ts-expect-error: the project had this one', 'export const a = 1;', ''].join('\n');
  const after = [
    '// @ts-expect-error: the project had this one',
    'export const a = 1;',
    '// @ts-ignore',
    'export const b: number = "x";',
    '/* eslint-disable-next-line no-console */ console.log(b);',
    '/* istanbul ignore next */ export function c() {}',
    '/* c8 ignore start */',
    'const note = "a @ts-nocheck in a string counts too: the gate cannot tell";',
    '',
  ].join('\n');
  const changes = [{ path: 'src/x.ts', before, after }];

  it('finds each directive on a line the run added, at its line and column, and never one the project already had', () => {
    assert.deepEqual(addedSuppressions(changes, 'typecheck'), [
      { file: 'src/x.ts', line: 3, column: 4, directive: '@ts-ignore' },
      { file: 'src/x.ts', line: 8, column: 17, directive: '@ts-nocheck' },
    ]);
    assert.deepEqual(addedSuppressions(changes, 'lint'), [{ file: 'src/x.ts', line: 5, column: 4, directive: 'eslint-disable-next-line' }]);
    assert.deepEqual(
      addedSuppressions(changes, 'coverage').map((s) => [s.line, s.directive]),
      [
        [6, 'istanbul ignore'],
        [7, 'c8 ignore'],
      ],
    );
  });

  it('a new file counts in full; a deleted file and an unchanged one count nothing', () => {
    assert.equal(addedSuppressions([{ path: 'src/new.ts', before: null, after: '// @ts-nocheck\nexport {};\n' }], 'typecheck').length, 1);
    assert.equal(addedSuppressions([{ path: 'src/gone.ts', before: '// @ts-nocheck\n', after: null }], 'typecheck').length, 0);
    assert.equal(
      addedSuppressions([{ path: 'src/same.ts', before: '// @ts-nocheck\r\n', after: '// @ts-nocheck\n' }], 'typecheck').length,
      0,
    );
  });
});
