#!/usr/bin/env node
// The set-up step `npm test` and `npm run bench` run first (their `pretest` and `prebench`), so the
// README's commands alone prepare a fresh machine. It checks the system packages the tests and the
// product need, installs the missing ones with apt-get when it can (as root, or through sudo without
// a password), and otherwise stops with one message naming them and the command that installs them.
// A no-op taking milliseconds when everything is there. code-server is installed after it, into its
// own cache, by scripts/install-code-server.sh.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What each Debian package provides and how its presence is seen. Why each is needed:
 * chromium drives the webview and code-server tests; ripgrep seeds code-server's offline install;
 * libkrb5-dev builds code-server's kerberos module; bubblewrap and socat sandbox the workspace's
 * commands (network-less test runs).
 */
export const PACKAGES = [
  { name: 'chromium', present: (probe) => probe.file(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium') || probe.command('chromium') },
  { name: 'ripgrep', present: (probe) => probe.command('rg') },
  { name: 'libkrb5-dev', present: (probe) => probe.debInstalled('libkrb5-dev') ?? probe.file('/usr/include/krb5.h') },
  { name: 'bubblewrap', present: (probe) => probe.command('bwrap') },
  { name: 'socat', present: (probe) => probe.command('socat') },
];

/** The exact command a user runs to install `missing` themselves. */
export function installCommand(missing) {
  return `sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`;
}

/**
 * What to do about `missing`: nothing, install (with or without sudo), or stop with a message.
 * `can` says whether apt-get exists, whether we are root, and whether sudo works without a password.
 */
export function plan(missing, can) {
  if (missing.length === 0) return { action: 'none' };
  if (can.aptGet && can.root) return { action: 'install', sudo: false };
  if (can.aptGet && can.sudo) return { action: 'install', sudo: true };
  const why = can.aptGet ? 'this user is not root and sudo asks for a password' : 'apt-get is not on this machine';
  return {
    action: 'stop',
    message:
      `Missing system packages: ${missing.join(', ')} (${why}). Install them with:\n  ${installCommand(missing)}` +
      (can.aptGet ? '' : '\n(or the same package names with your system\'s package manager)'),
  };
}

/** Probes of this machine, through PATH as the tests will see it. */
export function machineProbe() {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const command = (name) => dirs.some((dir) => existsSync(path.join(dir, name)));
  return {
    command,
    file: (file) => existsSync(file),
    // null when dpkg is not there to ask, so the caller falls back to a file check.
    debInstalled: (name) => {
      if (!command('dpkg-query')) return null;
      const out = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
      return out.status === 0 && out.stdout.includes('install ok installed');
    },
    aptGet: command('apt-get'),
    root: typeof process.getuid === 'function' && process.getuid() === 0,
    sudo: command('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0,
  };
}

export function missingPackages(probe) {
  return PACKAGES.filter((pkg) => !pkg.present(probe)).map((pkg) => pkg.name);
}

function run(argv, env) {
  process.stdout.write(`$ ${argv.join(' ')}\n`);
  const out = spawnSync(argv[0], argv.slice(1), { stdio: 'inherit', env: { ...process.env, ...env } });
  return out.status === 0;
}

function main() {
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
  const ok =
    run([...prefix, 'apt-get', 'update', '-qq'], env) &&
    run([...prefix, 'apt-get', 'install', '-y', '-qq', ...missing], env);
  const still = ok ? missingPackages(machineProbe()) : missing;
  if (still.length > 0) {
    process.stderr.write(`The install did not finish; still missing: ${still.join(', ')}. Install them with:\n  ${installCommand(still)}\n`);
    return 1;
  }
  process.stdout.write(`set-up: installed ${missing.join(' ')}\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main();
