import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { installCommand, missingPackages, plan, type Probe } from '../../../scripts/setup';

const SCRIPT = path.join(__dirname, '..', '..', '..', 'scripts', 'setup.ts');
/** dpkg's answer for a package it does not know. */
const NOT_INSTALLED = 'echo "dpkg-query: no packages found matching $3" >&2; exit 1';
const ALL = ['chromium', 'ripgrep', 'libkrb5-dev', 'bubblewrap', 'socat'];

/** A folder of stub executables: the only PATH the script sees, so no tool of this machine leaks in. */
function stubBin(stubs: Record<string, string>): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'tr-setup-'));
  chmodSync(dir, 0o755);
  for (const [name, body] of Object.entries(stubs)) {
    writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(dir, name), 0o755);
  }
  symlinkSync('/usr/bin/env', path.join(dir, 'env'));
  // HOME and TMPDIR of the run (tsx keeps its cache there), writable by the unprivileged user.
  mkdirSync(path.join(dir, 'home'), { mode: 0o1777 });
  chmodSync(path.join(dir, 'home'), 0o1777);
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs the real script with only `dir` on PATH; as an unprivileged user when the tests run as root. */
function runSetup(dir: string, opts: { asRoot?: boolean } = {}) {
  const root = process.getuid?.() === 0;
  return spawnSync(process.execPath, ['--require', 'tsx/cjs', SCRIPT], {
    cwd: path.join(__dirname, '..', '..', '..'),
    encoding: 'utf8',
    env: { PATH: dir, CHROMIUM_PATH: path.join(dir, 'chromium'), HOME: path.join(dir, 'home'), TMPDIR: path.join(dir, 'home') },
    ...(root && !opts.asRoot ? { uid: 65534, gid: 65534 } : {}),
    timeout: 30_000,
  });
}

const probeWith = (commands: string[], files: string[] = [], deb: Record<string, boolean> | null = {}): Probe => ({
  command: (name) => commands.includes(name),
  file: (file) => files.includes(file),
  debInstalled: (name) => (deb === null ? null : (deb[name] ?? false)),
});

describe('set-up step (scripts/setup.ts, run by npm test and npm run bench)', () => {
  it("sees each package by its own mark: a command, chromium's path, dpkg or a header for libkrb5-dev", () => {
    assert.deepEqual(missingPackages(probeWith([])), ALL);
    assert.deepEqual(missingPackages(probeWith(['chromium', 'rg', 'bwrap', 'socat'], [], { 'libkrb5-dev': true })), []);
    // dpkg answers "not installed": a stray header does not count.
    assert.deepEqual(missingPackages(probeWith(['chromium', 'rg', 'bwrap', 'socat'], ['/usr/include/krb5.h'], {})), ['libkrb5-dev']);
    // No dpkg to ask: the header is the mark.
    assert.deepEqual(missingPackages(probeWith(['chromium', 'rg', 'bwrap', 'socat'], ['/usr/include/krb5.h'], null)), []);
    // Having `socat` does not stand in for `bwrap`.
    assert.deepEqual(missingPackages(probeWith(['chromium', 'rg', 'socat'], [], { 'libkrb5-dev': true })), ['bubblewrap']);
  });

  it('installs only as root or with sudo that asks no password, and otherwise stops with the exact command', () => {
    assert.deepEqual(plan([], { aptGet: false, root: false, sudo: false }), { action: 'none' });
    assert.deepEqual(plan(['socat'], { aptGet: true, root: true, sudo: false }), { action: 'install', sudo: false });
    assert.deepEqual(plan(['socat'], { aptGet: true, root: false, sudo: true }), { action: 'install', sudo: true });
    const stop = plan(['chromium', 'socat'], { aptGet: true, root: false, sudo: false });
    assert.equal(stop.action, 'stop');
    assert.match(
      stop.action === 'stop' ? stop.message : '',
      /^Missing system packages: chromium, socat \(.*sudo asks for a password\)\. Install them with:\n {2}sudo apt-get update && sudo apt-get install -y chromium socat$/,
    );
    const noApt = plan(['ripgrep'], { aptGet: false, root: true, sudo: true });
    assert.equal(noApt.action, 'stop');
    assert.match(noApt.action === 'stop' ? noApt.message : '', /apt-get is not on this machine/);
    assert.equal(installCommand(['bubblewrap', 'socat']), 'sudo apt-get update && sudo apt-get install -y bubblewrap socat');
  });

  it('the real script, unprivileged with nothing installed: exit 1 and one message naming the packages and the command', () => {
    const bin = stubBin({ 'apt-get': 'echo "apt-get must not run" >&2; exit 1', 'dpkg-query': NOT_INSTALLED });
    try {
      const r = runSetup(bin.dir);
      assert.equal(r.status, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        /^Missing system packages: chromium, ripgrep, libkrb5-dev, bubblewrap, socat \(this user is not root and sudo asks for a password\)\. Install them with:\n {2}sudo apt-get update && sudo apt-get install -y chromium ripgrep libkrb5-dev bubblewrap socat\n$/,
      );
    } finally {
      bin.dispose();
    }
  });

  it('the real script does not call an install done until the packages are there', () => {
    // apt-get "succeeds" and installs nothing; sudo (when not root) runs it without a password.
    const bin = stubBin({ 'apt-get': 'exit 0', sudo: '[ "$1" = -n ] && shift; exec "$@"', 'dpkg-query': NOT_INSTALLED });
    try {
      const r = runSetup(bin.dir, { asRoot: true });
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /\$ (sudo -n env DEBIAN_FRONTEND=noninteractive )?apt-get update -qq\n/);
      assert.match(r.stdout, /apt-get install -y -qq chromium ripgrep libkrb5-dev bubblewrap socat\n/);
      assert.match(
        r.stderr,
        /^The install did not finish; still missing: chromium, ripgrep, libkrb5-dev, bubblewrap, socat\. Install them with:\n {2}sudo apt-get update && sudo apt-get install -y /,
      );
    } finally {
      bin.dispose();
    }
  });

  it('the real script is a silent no-op when everything is there', () => {
    const bin = stubBin({
      chromium: 'exit 0',
      rg: 'exit 0',
      bwrap: 'exit 0',
      socat: 'exit 0',
      'dpkg-query': 'printf "install ok installed"',
      'apt-get': 'echo "apt-get must not run" >&2; exit 1',
    });
    try {
      const r = runSetup(bin.dir);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout + r.stderr, '');
    } finally {
      bin.dispose();
    }
  });
});
