import assert from 'node:assert/strict';
import { parseAnswer } from '../../../src/node/lint/eslintLinter';

// The lint worker shares its process with the workspace's ESLint config and plugins: its
// lines are checked at the door, never believed.
describe("the lint worker's answers", () => {
  it("reads an answer that fits, letting ESLint's other fields through", () => {
    const line = JSON.stringify({
      id: 3,
      results: [
        {
          filePath: '/ws/a.ts',
          messages: [{ ruleId: 'semi', severity: 2, message: 'Missing semicolon.', line: 1, column: 9, nodeType: 'Program' }],
          errorCount: 1,
        },
      ],
    });
    const answer = parseAnswer(line);
    assert.ok(answer && 'results' in answer);
    assert.equal(answer.results[0]?.messages[0]?.message, 'Missing semicolon.');
  });

  it("turns an answer that does not fit into an error naming ESLint's worker and where it breaks", () => {
    const answer = parseAnswer(
      JSON.stringify({ id: 4, results: [{ filePath: '/ws/a.ts', messages: [{ ruleId: 'semi', severity: 'high', message: 'x' }] }] }),
    );
    assert.ok(answer && 'error' in answer, 'an error answer');
    assert.equal(answer.id, 4, 'under the id of the request it claims to answer');
    assert.match(answer.error, /^ESLint's worker answered something that is not a lint answer: \$\.results\.0\.messages\.0\.severity: /);
  });

  it('leaves lines that are no answer alone (not JSON, no id): a config may print', () => {
    assert.equal(parseAnswer('Warning: React version not specified'), undefined);
    assert.equal(parseAnswer(JSON.stringify({ results: [] })), undefined);
  });
});
