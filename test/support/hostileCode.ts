import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Server } from 'node:net';
import * as path from 'node:path';
import { REPO_ROOT } from './tempWorkspace';

/**
 * Code under test that attacks the machine it runs on, for the suites that prove the run's
 * sandbox holds. Put before a Coder answer, it runs when the tests import the module: each
 * probe prints `HOSTILE <what>: done` or `HOSTILE <what>: refused (<code>)`, so the test reads
 * what the attack achieved from the run's own log. `outsideFile` (default: beside the workspace)
 * is where it tries to write outside the workspace.
 */
export function hostilePrelude(o: { secretFile: string; port: number; renderedTest: string; outsideFile?: string }): string {
  return `import * as fs from 'node:fs';
import * as net from 'node:net';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';

function probe(what: string, act: () => unknown): void {
  try {
    const got = act();
    console.log(\`HOSTILE \${what}: done\${typeof got === 'string' ? ' ' + got : ''}\`);
  } catch (err) {
    console.log(\`HOSTILE \${what}: refused (\${(err as NodeJS.ErrnoException).code ?? String(err)})\`);
  }
}
const root = process.cwd();
probe('env', () => JSON.stringify(process.env));
probe('parent env', () => fs.readFileSync(\`/proc/\${process.ppid}/environ\`, 'utf8').split('\\0').join(' '));
probe('write outside', () => fs.writeFileSync(${o.outsideFile ? JSON.stringify(o.outsideFile) : "path.join(root, '..', 'escaped.txt')"}, 'escaped'));
probe('write rendered test', () => fs.appendFileSync(path.join(root, ${JSON.stringify(o.renderedTest)}), '\\n// tampered\\n'));
probe('write ticket', () => fs.appendFileSync(path.join(root, '.tickets', 'BLOG-5.ticket.json'), ' '));
probe('write run store', () => fs.writeFileSync(path.join(root, '.ticket-runner', 'planted.txt'), 'planted'));
probe('plant in workspace', () => fs.writeFileSync(path.join(root, 'src', 'planted.ts'), 'export const planted = true;\\n'));
probe('change out of scope', () => fs.appendFileSync(path.join(root, 'src', 'utils', 'pagination.ts'), '\\n// changed by a test\\n'));
probe('delete in workspace', () => fs.rmSync(path.join(root, 'README.md')));
probe('read secret file', () => fs.readFileSync(${JSON.stringify(o.secretFile)}, 'utf8'));
const socket = net.connect(${o.port}, '127.0.0.1');
socket.on('connect', () => { console.log('HOSTILE socket: done'); socket.end(); });
socket.on('error', (err: NodeJS.ErrnoException) => console.log(\`HOSTILE socket: refused (\${err.code})\`));
`;
}

/**
 * Code under test that reaches for what runs outside any sandbox later: a git hook (the next
 * commit runs it), `core.fsmonitor` in `.git/config` (the next `git status` runs it, and the
 * editor's git extension runs that all the time) and a VS Code task that runs when the folder
 * opens. Printed as `hostilePrelude`'s probes are; its names are its own, so it can stand before that prelude.
 */
export function gitPrelude(): string {
  return `import * as gitFs from 'node:fs';
import * as gitPath from 'node:path';

function gitProbe(what: string, act: () => unknown): void {
  try {
    act();
    console.log(\`HOSTILE \${what}: done\`);
  } catch (err) {
    console.log(\`HOSTILE \${what}: refused (\${(err as NodeJS.ErrnoException).code ?? String(err)})\`);
  }
}
// The workspace: where the tests run, or, from a copy of it, where its packages' links lead.
const gitRoot = gitFs.existsSync(gitPath.join(process.cwd(), '.git')) ? process.cwd() : gitPath.dirname(gitPath.dirname(gitFs.readlinkSync(gitPath.join(process.cwd(), 'node_modules', 'tsx'))));
const dotGit = gitPath.join(gitRoot, '.git');
gitProbe('plant git hook', () => gitFs.writeFileSync(gitPath.join(dotGit, 'hooks', 'pre-commit'), '#!/bin/sh\\necho owned\\n', { mode: 0o755 }));
gitProbe('set fsmonitor', () => gitFs.appendFileSync(gitPath.join(dotGit, 'config'), '[core]\\n\\tfsmonitor = echo owned\\n'));
gitProbe('plant editor task', () => { gitFs.mkdirSync(gitPath.join(gitRoot, '.vscode'), { recursive: true }); gitFs.writeFileSync(gitPath.join(gitRoot, '.vscode', 'tasks.json'), '{"version":"2.0.0","tasks":[{"label":"owned","type":"shell","command":"echo owned","runOptions":{"runOn":"folderOpen"}}]}'); });
`;
}

/** Every file under a folder with its text, for "this string is nowhere in it". */
export function filesUnder(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ file: p, text: readFileSync(p, 'latin1') });
    }
  };
  walk(dir);
  return out;
}

/** Puts the prelude before a fixture answer of the copy, so the scripted Coder writes it. */
export function makeAnswerHostile(root: string, answerFile: string, prelude: string): void {
  const file = path.join(root, '.tickets', 'answers', answerFile);
  writeFileSync(file, prelude + readFileSync(file, 'utf8'));
}

/** The built CLI (dist/cli.js) as its own process, with the environment the test chooses. */
export function runBuiltCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'dist', 'cli.js'), ...args],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

/** The canary: a key in the parent's environment that nothing the workspace runs may see. */
export const LINT_CANARY = 'sk-canary-lint-0123456789abcdef0123';

/**
 * An ESLint config is the workspace's code: this one tries to write outside the workspace (the
 * real home, the system temp folder, beside the workspace), dumps its environment into the
 * workspace, and then configures a rule whose result is known (a `max-lines` warning per file).
 * What it saw (its environment, and the error of each write) it also reports as a warning of its
 * own rule, `hostile/seen`, at line 1 of each file: in a run, that reaches the log whatever
 * becomes of the file it wrote (a test command that runs while the config loads puts back, that
 * is removes, a file made in the workspace meanwhile).
 */
export function hostileEslintConfig(outside: string[]): string {
  return `import { writeFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';
const tries = {};
for (const file of ${JSON.stringify(outside)}) {
  try { writeFileSync(file, 'escaped'); tries[file] = 'done'; } catch (e) { tries[file] = e.code; }
}
const seen = JSON.stringify({ env: process.env, tries });
writeFileSync('lint-env.json', seen);
const hostile = { rules: { seen: { create: (context) => ({ Program: (node) => context.report({ node, message: seen }) }) } } };
export default tseslint.config({ files: ['**/*.ts'], extends: [tseslint.configs.recommended], plugins: { hostile }, rules: { 'max-lines': ['warn', 1], 'hostile/seen': 'warn' } });
`;
}

/** What the hostile ESLint config saw, as its `hostile/seen` warning says it. */
export interface LintConfigSaw {
  env: Record<string, string>;
  tries: Record<string, string>;
}

/** Paths outside the workspace and the run's private temp: the real home, the system temp folder, beside the workspace. */
export function outsidePaths(root: string): string[] {
  const tag = `tr-lint-escaped-${path.basename(path.dirname(root))}.txt`;
  return [path.join(homedir(), tag), path.join(tmpdir(), tag), path.join(path.dirname(root), tag)];
}

/** A loopback server that counts who reached it: the sandbox has no network, not even this. */
export async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => n };
}
