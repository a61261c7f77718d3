import assert from 'node:assert/strict';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { copyFixture, REPO_ROOT } from '../../support/tempWorkspace';
import { linkSharedPackages } from '../../../scripts/fixtureLinks.cjs';
import { answer, coderTextByAttempt, loadEvents, writeScript } from '../../support/rungRuns';
import { runTicket } from '../../support/scenario';

/**
 * The stash channel (BLOG-14): the held-out file is on disk while the command that judges with
 * it runs, and the code under test copies it wherever a later command could read it back (a
 * path of the workspace out of scope, the runners' cache in node_modules, the folders git and the
 * run store keep, the command's home and temporary folder, a folder outside the workspace). The
 * next attempt's code reads every such place and fails its visible cases with what it found,
 * base64-encoded so that no literal check could find it.
 *
 * Closed: every place in the tree the tests run in (a copy of the workspace, brought back to it
 * before each command: whatever a command wrote there, its node_modules caches, a `.git` or a
 * run store it made, goes), the command's home and temporary folder (its own, removed with it),
 * and with the sandbox any folder outside that copy. Still open (`OPEN`), pinned here so that
 * closing one updates this test: without the sandbox, a folder outside the copy, which nothing
 * but the sandbox can keep from the code (the workspace itself, found through the copy's links
 * to its packages, is one: a change there while a command runs stops the run, but its run store
 * and caches are not looked at).
 */

const FILE = 'src/utils/pathSegments.ts';
/** The held-out case's own text: its input, and its name. */
const HELD_OUT = ["pathSegments('http://localhost:3000/tags/ts/?page=2#top')", 'localhost:3000', 'takes the path of another URL'];
const STASH = 'tr-stash-held-out.txt';

/** The places the code under test stashes the tests' folder into, as code; `outside` is a folder out of the workspace. */
const places = (outside: string) => `[
  path.join(__dirname, '../.${STASH}'),
  path.join(__dirname, '../../node_modules/.cache/${STASH}'),
  path.join(__dirname, '../../node_modules/.vite/${STASH}'),
  path.join(__dirname, '../../.git/${STASH}'),
  path.join(__dirname, '../../.ticket-runner/${STASH}'),
  path.join(os.homedir(), '${STASH}'),
  path.join(os.tmpdir(), '${STASH}'),
  path.join(${JSON.stringify(outside)}, '${STASH}'),
]`;

const header = `import * as fs from 'node:fs';\nimport * as os from 'node:os';\nimport * as path from 'node:path';\n`;

/** Attempt 1: as the tests load it, copies every file of the tests' folder (the held-out one is there) to each place. */
const stashes = (root: string, outside: string) =>
  `${header}{\n  const dir = path.join(__dirname, '../../test/ticket');\n  const text = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\\n');\n  for (const p of ${places(outside)}) {\n    try {\n      fs.mkdirSync(path.dirname(p), { recursive: true });\n      fs.writeFileSync(p, text);\n    } catch {\n      // refused: the next place\n    }\n  }\n}\n${answer(root, 'BLOG-14', 'attempt1.ts')}`;

/** Attempt 2: reads each place back and fails its visible cases with what it found, encoded. */
const readsBack = (outside: string) =>
  `${header}export function pathSegments(_url: string): string[] {\n  const found = ${places(outside)}.flatMap((p) => { try { return [Buffer.from(p + '\\n' + fs.readFileSync(p, 'utf8')).toString('base64')]; } catch { return []; } });\n  throw new Error('stash: ' + (found.join(' ') || 'nothing'));\n}\n`;

const leaks = (text: string) => HELD_OUT.filter((h) => text.includes(h));

/** The places attempt 2's code still reads the held-out file back from, by the sandbox (see above). */
const OPEN = {
  on: [],
  off: ['<outside>'],
};
const debuggerSays = (attempt: number, quote: string) => ({
  expect: { attempt, promptIncludes: [] },
  structured: {
    kind: 'code',
    claim: 'pathSegments is wrong.',
    evidence: [{ source: 'testOutput', quote }],
    brief: 'Parse the argument as a URL and split its pathname.',
    avoid: [],
  },
});

describe('scenarios: code under test that stashes the held-out file for a later attempt (BLOG-14)', function () {
  this.timeout(180_000);

  for (const sandbox of [true, false]) {
    it(`with the sandbox ${sandbox ? 'on' : 'off'}: attempt 2's code reads attempt 1's stash back only from the places still open`, async () => {
      const ws = copyFixture();
      // A node_modules folder of the workspace's own, as an installed project has (the runners' caches in it).
      unlinkSync(path.join(ws.root, 'node_modules'));
      linkSharedPackages(ws.root, path.join(REPO_ROOT, 'node_modules'));
      const outside = path.join(path.dirname(ws.root), 'outside');
      try {
        writeScript(ws.root, 'BLOG-14', {
          coder: [
            { expect: { attempt: 1, promptIncludes: [] }, files: { [FILE]: stashes(ws.root, outside) } },
            { expect: { attempt: 2, promptIncludes: ['too narrow'] }, files: { [FILE]: readsBack(outside) } },
            { expect: { attempt: 3, promptIncludes: ['stash: '] }, files: { [FILE]: answer(ws.root, 'BLOG-14', 'attempt2.ts') } },
          ],
          debugger: [
            debuggerSays(1, 'The change passes the visible tests but is too narrow'),
            debuggerSays(2, 'takes the path of an https URL'),
          ],
        });
        const wire = sandbox ? {} : { withoutSandbox: 'the stash channel with no OS sandbox' };
        const r = await runTicket(ws.root, 'BLOG-14', {
          wire,
          patch: (d) => Object.assign(d, { diagnostics: undefined, lint: undefined }),
        });
        const s = r.state;
        if (sandbox) assert.equal(s.sandbox?.on, true, `this test needs the OS sandbox (bubblewrap): ${s.sandbox?.detail}`);
        const events = await loadEvents(ws.root, r.runId);
        assert.equal(s.status, 'passed', JSON.stringify(s.finished));
        assert.deepEqual(
          s.attempts.map((a) => [a.tests?.status, a.heldOut?.status]),
          [
            ['passed', 'failed'],
            ['failed', undefined],
            ['passed', 'passed'],
          ],
        );
        const told = [...(await coderTextByAttempt(ws.root, r.runId, events)).values()].join('\n');
        const decoded = [...told.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)].map((m) => Buffer.from(m[0], 'base64').toString('utf8'));
        const where = (d: string) =>
          path.dirname(
            d
              .split('\n')[0]!
              .replace(outside, '<outside>')
              .replace(ws.root + path.sep, ''),
          );
        const readBack = [...new Set(decoded.filter((d) => leaks(d).length > 0).map(where))];
        assert.deepEqual(readBack, OPEN[sandbox ? 'on' : 'off'], "the places attempt 2's code read the held-out file back from");
        assert.deepEqual(leaks(told), [], 'no held-out text, as it is, in any Coder prompt');
        // The workspace's own files are put back: no stash there outlives the run.
        const own = path.join(ws.root, 'src', `.${STASH}`);
        assert.ok(!existsSync(own) || leaks(readFileSync(own, 'utf8')).length === 0, 'src/ holds the held-out case');
      } finally {
        ws.dispose();
      }
    });
  }
});
