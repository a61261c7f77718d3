// Starts and stops code-server (a real VS Code 1.100 server build) for the extension's
// tests, as test/vscode/README.md describes: no auth, loopback only, no telemetry or update
// checks, its own user-data, extensions and XDG folders in a temp dir, one process group so
// stop() ends it with every watcher and extension host it started.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { dir as codeServerDir } from '../../scripts/codeServerDir.cjs';

export const ROOT = join(__dirname, '..', '..');
export const CODE_SERVER_DIR = codeServerDir;
const ENTRY = join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

/** Installs code-server into the cache when it is not there yet (scripts/install-code-server.sh). */
export function ensureCodeServer() {
  if (existsSync(ENTRY)) return;
  const r = spawnSync('bash', [join(ROOT, 'scripts', 'install-code-server.sh')], { stdio: 'inherit' });
  if (r.status !== 0 || !existsSync(ENTRY)) throw new Error('code-server could not be installed: see the output above');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface CodeServer {
  port: number;
  origin: string;
  dir: string;
  stop: () => Promise<void>;
  log: () => string;
}

/** `untrusted`: workspace trust stays on and the folder opens in Restricted Mode, with no startup prompt. */
/** `env`: variables added to (or replacing) this process's environment, for the server and its extension hosts. */
/** `extensions`: extension folders (a package.json and its bundle) installed into the server's extensions folder before it starts. */
export async function startCodeServer(opts: {
  folder: string;
  userSettings?: Record<string, unknown>;
  untrusted?: boolean;
  env?: Record<string, string>;
  extensions?: string[];
}): Promise<CodeServer> {
  ensureCodeServer();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tr-code-server-'));
  for (const ext of opts.extensions ?? []) cpSync(ext, join(dir, 'ext', basename(ext)), { recursive: true });
  const ud = join(dir, 'ud');
  mkdirSync(join(ud, 'User'), { recursive: true });
  writeFileSync(
    join(ud, 'User', 'settings.json'),
    JSON.stringify({
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'security.workspace.trust.enabled': opts.untrusted === true,
      'security.workspace.trust.startupPrompt': 'never',
      'git.enabled': false,
      ...opts.userSettings,
    }),
  );
  writeFileSync(join(dir, 'config.yaml'), 'auth: none\n');
  let output = '';
  const child = spawn(
    process.execPath,
    [
      ENTRY,
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      ...(opts.untrusted ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--config',
      join(dir, 'config.yaml'),
      '--user-data-dir',
      ud,
      '--extensions-dir',
      join(dir, 'ext'),
      opts.folder,
    ],
    {
      detached: true,
      env: {
        ...process.env,
        ...opts.env,
        XDG_CONFIG_HOME: join(dir, 'xdg-config'),
        XDG_DATA_HOME: join(dir, 'xdg-data'),
        XDG_CACHE_HOME: join(dir, 'xdg-cache'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      const until = Date.now() + 5000;
      while (child.exitCode === null && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > until) {
      await stop();
      throw new Error(`code-server did not answer /healthz within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, origin, dir, stop, log: () => output };
}

/**
 * The workbench URL that loads `extensionPath` as the development extension (and runs tests, with
 * `testsPath`). `proposedApi`: proposed API for every extension (a test extension that registers a
 * chat model needs 1.100's proposed `chatProvider`).
 */
export function workbenchUrl({
  origin,
  port,
  folder,
  extensionPath,
  testsPath,
  proposedApi,
}: {
  origin: string;
  port: number;
  folder: string;
  extensionPath: string;
  testsPath?: string;
  proposedApi?: boolean;
}): string {
  const remote = (p: string) => `vscode-remote://127.0.0.1:${port}${p}`;
  const payload = [['extensionDevelopmentPath', remote(extensionPath)]];
  if (proposedApi) payload.push(['enableProposedApi', '']);
  if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
  return `${origin}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
