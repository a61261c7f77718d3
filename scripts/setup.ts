// The set-up step `npm test` and `npm run bench` run first (their `pretest` and `prebench`), so the
// README's commands alone prepare a fresh machine. It checks the system packages the tests and the
// product need, installs the missing ones with apt-get when it can (as root, or through sudo without
// a password), and otherwise stops with one message naming them and the command that installs them.
// A no-op taking milliseconds when everything is there. code-server is installed after it, into its
// own cache, by scripts/install-code-server.sh.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

export interface Probe {
  command: (name: string) => boolean;
  file: (file: string) => boolean;
  /** null when dpkg is not there to ask. */
  debInstalled: (name: string) => boolean | null;
}

/** What the set-up can do about missing packages on this machine. */
export interface Abilities {
  aptGet: boolean;
  root: boolean;
  /** sudo works without a password. */
  sudo: boolean;
}

export type Plan = { action: 'none' } | { action: 'install'; sudo: boolean } | { action: 'stop'; message: string };

/**
 * What each Debian package provides and how its presence is seen. Why each is needed:
 * chromium drives the webview and code-server tests; ripgrep seeds code-server's offline install;
 * libkrb5-dev builds code-server's kerberos module; bubblewrap and socat sandbox the workspace's
 * commands (network-less test runs).
 */
export const PACKAGES: readonly { name: string; present: (probe: Probe) => boolean }[] = [
  { name: 'chromium', present: (probe) => probe.file(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') || probe.command('chromium') },
  { name: 'ripgrep', present: (probe) => probe.command('rg') },
  { name: 'libkrb5-dev', present: (probe) => probe.debInstalled('libkrb5-dev') ?? probe.file('/usr/include/krb5.h') },
  { name: 'bubblewrap', present: (probe) => probe.command('bwrap') },
  { name: 'socat', present: (probe) => probe.command('socat') },
];

/** The exact command a user runs to install `missing` themselves. */
export function installCommand(missing: readonly string[]): string {
  return `sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`;
}

/**
 * What to do about `missing`: nothing, install (with or without sudo), or stop with a message.
 * `can` says whether apt-get exists, whether we are root, and whether sudo works without a password.
 */
export function plan(missing: readonly string[], can: Abilities): Plan {
  if (missing.length === 0) return { action: 'none' };
  if (can.aptGet && can.root) return { action: 'install', sudo: false };
  if (can.aptGet && can.sudo) return { action: 'install', sudo: true };
  const why = can.aptGet ? 'this user is not root and sudo asks for a password' : 'apt-get is not on this machine';
  return {
    action: 'stop',
    message:
      `Missing system packages: ${missing.join(', ')} (${why}). Install them with:\n  ${installCommand(missing)}` +
      (can.aptGet ? '' : "\n(or the same package names with your system's package manager)"),
  };
}

/** Probes of this machine, through PATH as the tests will see it. */
export function machineProbe(): Probe & Abilities {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const command = (name: string) => dirs.some((dir) => existsSync(path.join(dir, name)));
  return {
    command,
    file: (file: string) => existsSync(file),
    // null when dpkg is not there to ask, so the caller falls back to a file check.
    debInstalled: (name: string) => {
      if (!command('dpkg-query')) return null;
      const out = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
      return out.status === 0 && out.stdout.includes('install ok installed');
    },
    aptGet: command('apt-get'),
    root: typeof process.getuid === 'function' && process.getuid() === 0,
    sudo: command('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  };
}

export function missingPackages(probe: Probe): string[] {
  return PACKAGES.filter((pkg) => !pkg.present(probe)).map((pkg) => pkg.name);
}

function run(argv: string[], env: Record<string, string>): boolean {
  process.stdout.write(`$ ${argv.join(' ')}\n`);
  const out = spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit', env: { ...process.env, ...env } });
  return out.status === 0;
}

function main(): number {
  const probe = machineProbe();
  const missing = missingPackages(probe);
  const decision = plan(missing, probe);
  if (decision.action === 'none') return 0;
  if (decision.action === 'stop') {
    process.stderr.write(`${decision.message}\n`);
    return 1;
  }
  process.stdout.write(`set-up: installing missing system packages: ${missing.join(' ')}\n`);
  const prefix = decision.sudo ? ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive'] : [];
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const ok = run([...prefix, 'apt-get', 'update', '-qq'], env) && run([...prefix, 'apt-get', 'install', '-y', '-qq', ...missing], env);
  const still = ok ? missingPackages(machineProbe()) : missing;
  if (still.length > 0) {
    process.stderr.write(
      `The install did not finish; still missing: ${still.join(', ')}. Install them with:\n  ${installCommand(still)}\n`,
    );
    return 1;
  }
  process.stdout.write(`set-up: installed ${missing.join(' ')}\n`);
  return 0;
}

if (require.main === module) process.exitCode = main();
