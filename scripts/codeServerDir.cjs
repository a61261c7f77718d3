// Where code-server is kept: one folder per version in the user's cache, shared by every checkout
// of the repository, so a fresh clone does not install it again (3 to 4 minutes). CODE_SERVER_DIR
// and CODE_SERVER_VERSION override both. Read by scripts/install-code-server.sh and the tests.
const { homedir } = require('node:os');
const { join } = require('node:path');

const version = process.env.CODE_SERVER_VERSION || '4.100.3';
const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
const dir = process.env.CODE_SERVER_DIR || join(cache, 'ticket-runner', `code-server-${version}`);

module.exports = { version, dir };
