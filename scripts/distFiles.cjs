// How the build puts a file into dist/: written beside its place under a name of its own, then
// renamed over the old one. A program running from dist/ (the sandbox runtime's apply-seccomp
// while a run goes on, or the CLI itself) keeps its old file open; writing into that file would
// fail with ETXTBSY, or change code under a running process. The rename swaps the name at once.
// CommonJS, so that both the ES module build and the tests can load it.
const { chmodSync, copyFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');

/** Puts a new file at `to` by rename: `put` writes it under a name beside `to`, which gets `mode` before it gets the name. */
function byRename(to, mode, put) {
  const tmp = `${to}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  try {
    put(tmp);
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, to);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Puts `contents` at `to` by rename. */
function writeByRename(to, contents, mode) {
  byRename(to, mode, (tmp) => writeFileSync(tmp, contents));
}

/** Copies `from` to `to` by rename. */
function copyByRename(from, to, mode) {
  byRename(to, mode, (tmp) => copyFileSync(from, tmp));
}

module.exports = { writeByRename, copyByRename };
