import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { FIXTURE } from './tempWorkspace';

/**
 * Hostile tickets for the verdict's tests: a copy of a fixture ticket whose recorded Coder
 * answers are code that attacks its judge (rewrites the rendered test, silences the
 * assertions). The Debugger's answers are given by the test.
 */
export interface HostileTicket {
  id: string;
  /** The fixture ticket whose scope and test plan it reuses. */
  from: string;
  /** Whole-file Coder answers, one per attempt. */
  coder: Record<string, string>[];
  debugger?: unknown[];
  /** Edits the ticket's JSON before it is written. */
  edit?: (ticket: Record<string, unknown>) => void;
}

export function writeHostileTicket(root: string, t: HostileTicket): string {
  const dir = path.join(root, '.tickets');
  const ticket = JSON.parse(readFileSync(path.join(dir, `${t.from}.ticket.json`), 'utf8')) as Record<string, unknown>;
  ticket.id = t.id;
  t.edit?.(ticket);
  writeFileSync(path.join(dir, `${t.id}.ticket.json`), JSON.stringify(ticket, null, 2));
  const script = {
    $comment: 'A hostile Coder, for the verdict tests.',
    coder: t.coder.map((files, i) => ({ expect: { attempt: i + 1 }, files })),
    debugger: (t.debugger ?? []).map((structured) => ({ structured })),
  };
  writeFileSync(path.join(dir, `${t.id}.script.json`), JSON.stringify(script, null, 2));
  return `.tickets/${t.id}.ticket.json`;
}

/** BLOG-1's handler with the bug its attempt 1 makes: the guard reads the clamped value and never fires. */
export const BUGGY_POSTS_HANDLER = readFileSync(path.join(FIXTURE, '.tickets', 'answers', 'BLOG-1', 'attempt1.ts'), 'utf8');

/**
 * A patch for a module of the installed runner that node:test's processes load before the test
 * file (tsx's CommonJS hook, or what it requires): it compiles a rendered test (test/ticket/)
 * its own way, each assertion and the control that checks them compiled out, every case where it
 * was. The frozen test APIs are never touched. On a runner so patched a wrong answer passes.
 */
export const COMPILES_OUT_THE_ASSERTIONS = `
;(() => {
  const Module = require('node:module');
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (/[\\\\/]test[\\\\/]ticket[\\\\/]/.test(filename)) content = content.replace(/\\bassert\\.\\w+\\(/g, '(() => {})(').replace(/\\bassertionsStillFail\\(\\)(?=[;}\\s])/g, 'void 0');
    return compile.call(this, content, filename);
  };
})();
`;
