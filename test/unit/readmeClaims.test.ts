import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/tempWorkspace';

/** The page that holds the claims table; the README links to it. */
const GUARANTEES = 'docs/guarantees.md';

/** The rows of the claims table in docs/guarantees.md: the claim, the test file and the start of the test's title. */
function claims(): { claim: string; file: string; title: string }[] {
  const page = readFileSync(path.join(REPO_ROOT, GUARANTEES), 'utf8');
  const lines = page.split('\n');
  const header = lines.findIndex((l) => /^\| claim \| proved by \|/.test(l));
  assert.ok(header >= 0, `${GUARANTEES} has a table whose header is "| claim | proved by |"`);
  const end = lines.findIndex((l, i) => i > header && !l.startsWith('|'));
  return lines.slice(header + 2, end < 0 ? undefined : end).map((row) => {
    const [, claim, proof] = row.split(/\s*\|\s*/);
    const m = /^`([^`]+)` › "(.+)"$/.exec(proof ?? '');
    assert.ok(m, `the row "${claim}" names its test as \`path\` › "title": ${proof}`);
    return { claim: claim!, file: m[1]!, title: m[2]! };
  });
}

/** A test's source with its string escapes undone, so a title reads as it is written in the table. */
const unescaped = (source: string) => source.replace(/\\(['"`])/g, '$1');

describe('docs/guarantees.md: every claim names a test that exists', () => {
  it('each claim of the guarantees table points at a test (it or describe) whose title starts as quoted', () => {
    const rows = claims();
    assert.ok(rows.length >= 10, `the table has ${rows.length} claims`);
    const missing = rows.filter(({ file, title }) => {
      const abs = path.join(REPO_ROOT, file);
      if (!existsSync(abs)) return true;
      const source = unescaped(readFileSync(abs, 'utf8'));
      return !['it', 'describe'].some((fn) => ["'", '"', '`'].some((q) => source.includes(`${fn}(${q}${title}`)));
    });
    assert.deepEqual(
      missing.map((r) => `${r.file} › ${r.title}`),
      [],
      'claims whose test is gone: prove them again or remove them',
    );
  });

  it('the README links to the guarantees page', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    assert.ok(readme.includes(`](${GUARANTEES})`), `README.md links to ${GUARANTEES}`);
  });
});
