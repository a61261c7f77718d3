import { UserInputError } from '../../errors';
import type { HashFn } from '../../ports/clock';
import type { DiagnosticsPort } from '../../ports/checks';
import type { WorkspacePort } from '../../ports/workspace';
import { Manifest, type ScopedFile, type TestRunnerSpec } from '../../schema/manifest';
import { authoredTests, type TestFramework } from '../../schema/testPlan';
import type { Ticket } from '../../schema/ticket';
import { GENERATED_HEADER } from '../materializer';
import { heldOutCases, heldOutPath, heldOutProblem, splitHeldOut } from './heldOut';
import { isTestPath, normalizeRelPath, testTargetProblem } from '../../schema/paths';
import { packageOf, workspacePackages } from '../common/workspacePackages';
import { parsePackageJson, type PackageJson } from '../../schema/packageJson';

/** The runners' own config files, by framework; the first one found decides. */
export const RUNNER_CONFIGS: Readonly<Record<Exclude<TestFramework, 'node:test'>, readonly string[]>> = {
  vitest: ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.cts', 'vitest.config.js', 'vitest.config.mjs', 'vitest.config.cjs'],
  jest: [
    'jest.config.ts',
    'jest.config.mts',
    'jest.config.cts',
    'jest.config.js',
    'jest.config.mjs',
    'jest.config.cjs',
    'jest.config.json',
  ],
  mocha: ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'],
};
const FRAMEWORKS = ['vitest', 'jest', 'mocha'] as const;

/**
 * Detects the workspace's test framework from its own configuration, most specific first: a
 * runner's config file, then the command scripts.test runs, then a declared dependency (a
 * project moving from jest to vitest may still depend on both; its test script says which runs).
 */
export function detectRunner(
  pkg: PackageJson | null,
  declared: TestFramework | undefined,
  configFiles: readonly string[] = [],
): TestRunnerSpec {
  if (declared) return { framework: declared, detectedFrom: 'the ticket test plan' };
  for (const fw of FRAMEWORKS) {
    const config = configFiles.find((f) => RUNNER_CONFIGS[fw].includes(f));
    if (config) return { framework: fw, detectedFrom: `config file ${config}` };
  }
  if (!pkg) return { framework: 'node:test', detectedFrom: 'default (no package.json)' };
  const script = pkg.scripts?.test ?? '';
  for (const fw of FRAMEWORKS) {
    if (new RegExp(`\\b${fw}\\b`).test(script)) return { framework: fw, detectedFrom: `package.json scripts.test` };
  }
  if (/node\b.*--test\b/.test(script)) return { framework: 'node:test', detectedFrom: 'package.json scripts.test (node --test)' };
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  for (const fw of FRAMEWORKS) {
    if (fw in deps) return { framework: fw, detectedFrom: `package.json dependency "${fw}"` };
  }
  return { framework: 'node:test', detectedFrom: 'default (no test framework declared)' };
}

/** Which of the runners' config files a folder holds (the root when `dir` is empty). */
async function runnerConfigFiles(ws: WorkspacePort, dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const f of Object.values(RUNNER_CONFIGS).flat()) if (await ws.exists(dir ? `${dir}/${f}` : f)) found.push(f);
  return found;
}

/**
 * The runner of the folder that holds `file`: in an npm-workspaces monorepo its package (its
 * package.json and config files; detectedFrom names the package), otherwise the root.
 */
export async function detectRunnerFor(
  ws: WorkspacePort,
  file: string,
  declared?: TestFramework,
): Promise<{ runner: TestRunnerSpec; pkg: PackageJson | null }> {
  const dir = packageOf(await workspacePackages(ws), file)?.dir ?? '';
  const pkg = await readPackageJson(ws, dir);
  const runner = detectRunner(pkg, declared, declared ? [] : await runnerConfigFiles(ws, dir));
  return { runner: dir && !declared ? { ...runner, detectedFrom: `${dir}: ${runner.detectedFrom}` } : runner, pkg };
}

/** Serializes a manifest in its schema's key order: the same manifest gives the same bytes. */
export function serializeManifest(manifest: Manifest): string {
  return JSON.stringify(Manifest.parse(manifest), null, 2) + '\n';
}

export interface ManifestInputs {
  ticket: Ticket;
  ticketPath: string;
  workspace: WorkspacePort;
  /** Resolves `refs` into signature facts; without it the facts are empty. */
  diagnostics?: DiagnosticsPort;
}

async function readPackageJson(ws: WorkspacePort, dir: string): Promise<PackageJson | null> {
  const file = dir ? `${dir}/package.json` : 'package.json';
  const text = await ws.readFile(file);
  if (text === null) return null;
  try {
    return parsePackageJson(text);
  } catch {
    throw new UserInputError(`${file} in the workspace is not valid JSON: fix it so the test framework can be detected`);
  }
}

/** A problem with one path of a ticket: where it is (a JSON path) and what is wrong, starting with the field. */
export interface TicketPathProblem {
  path: string;
  message: string;
}

/**
 * Every path problem of a ticket, in order: scope paths must stay in the workspace, read paths
 * must exist, no test file may be writable, a test target must be a test file, an authored test
 * must exist, and a held-out file must be neither the project's nor in scope (and some test must
 * stay visible). The run
 * stops on the first (buildManifest); `validate` lists them all.
 */
export async function ticketPathProblems(ticket: Ticket, ticketPath: string, workspace: WorkspacePort): Promise<TicketPathProblem[]> {
  const problems: TicketPathProblem[] = [];
  const where = (field: string, jsonPath: string, p: string): string | undefined => {
    try {
      return normalizeRelPath(p);
    } catch (err) {
      problems.push({ path: jsonPath, message: `${field} path ${err instanceof Error ? err.message : String(err)}` });
      return undefined;
    }
  };
  const testFiles: string[] = [];
  for (const [i, f] of ticket.testPlan.files.entries()) {
    const p = where(`testPlan.files[${i}].path`, `$.testPlan.files[${i}].path`, f.path);
    if (p === undefined) continue;
    testFiles.push(p);
    const content = await workspace.readFile(p);
    const existing = content === null ? 'none' : content.startsWith(GENERATED_HEADER[0]!) ? 'rendered' : 'other';
    const problem = testTargetProblem(p, existing, ticketPath);
    if (problem) {
      problems.push({
        path: `$.testPlan.files[${i}].path`,
        message: `testPlan.files[${i}].path "${p}" ${problem}. A test plan may target a new test file, or an existing one (under test/, tests/ or __tests__/, or named *.test.* or *.spec.*): its file is rendered from scratch.`,
      });
    }
  }
  const authored: string[] = [];
  // The held-out test files, rendered or authored: never in the Coder's scope.
  const heldOut: string[] = [];
  for (const [i, a] of authoredTests(ticket.testPlan).entries()) {
    const at = typeof ticket.testPlan.authored?.[i] === 'string' ? `testPlan.authored[${i}]` : `testPlan.authored[${i}].path`;
    const p = where(at, `$.${at}`, a.path);
    if (p === undefined) continue;
    authored.push(p);
    if (a.heldOut && ticket.generalize !== false) heldOut.push(p);
    const problem = authoredProblem(p, testFiles, await workspace.exists(p));
    if (problem) problems.push({ path: `$.${at}`, message: `${at} "${p}" ${problem}` });
  }
  const held = heldOutProblem(ticket);
  if (held) problems.push({ path: '$.testPlan', message: `testPlan: ${held}` });
  // A held-out file is rendered from scratch beside its visible one: it must not be a file of the project's, nor one the Coder may read.
  const heldFiles = new Set(heldOutCases(ticket).map((c) => c.file));
  for (const [i, f] of ticket.testPlan.files.entries()) {
    if (!heldFiles.has(heldOutPath(f.path))) continue;
    const p = where(`testPlan.files[${i}].path`, `$.testPlan.files[${i}].path`, heldOutPath(f.path));
    if (p === undefined) continue;
    heldOut.push(p);
    const content = await workspace.readFile(p);
    if (content !== null && !content.startsWith(GENERATED_HEADER[0]!)) {
      problems.push({
        path: `$.testPlan.files[${i}].path`,
        message: `the held-out cases of testPlan.files[${i}] are rendered to "${p}", which is a file of the project's. Rename that file, or say "holdout": false on the cases.`,
      });
    }
  }
  for (const [i, raw] of ticket.scope.write.entries()) {
    const p = where(`scope.write[${i}]`, `$.scope.write[${i}]`, raw);
    if (p !== undefined && testFiles.includes(p)) {
      problems.push({
        path: `$.scope.write[${i}]`,
        message: `scope.write[${i}] "${p}" is a rendered test file; tests are read-only. Remove it from scope.write.`,
      });
    }
    if (p !== undefined && authored.includes(p)) {
      problems.push({
        path: `$.scope.write[${i}]`,
        message: `scope.write[${i}] "${p}" is a test file you wrote, which the run judges by; tests are read-only. Remove it from scope.write.`,
      });
    }
    if (p !== undefined && heldOut.includes(p)) {
      problems.push({
        path: `$.scope.write[${i}]`,
        message: `scope.write[${i}] "${p}" is the held-out test file, which the Coder never sees. Remove it from scope.write.`,
      });
    }
  }
  for (const [i, raw] of ticket.scope.read.entries()) {
    const p = where(`scope.read[${i}]`, `$.scope.read[${i}]`, raw);
    if (p !== undefined && heldOut.includes(p)) {
      problems.push({
        path: `$.scope.read[${i}]`,
        message: `scope.read[${i}] "${p}" is the held-out test file, which the Coder never sees. Remove it from scope.read.`,
      });
    } else if (p !== undefined && !(await workspace.exists(p))) {
      problems.push({
        path: `$.scope.read[${i}]`,
        message: `scope.read[${i}] "${p}" does not exist in the workspace. Fix the path or remove it.`,
      });
    }
  }
  for (const [i, ref] of ticket.refs.entries()) where('refs.file', `$.refs[${i}].file`, ref.file);
  return problems;
}

/**
 * Why an authored test file cannot judge a run, or undefined: it must be there when the run
 * starts (the run reads its cases from it), be named as a test, and not be a rendered file.
 */
function authoredProblem(path: string, rendered: readonly string[], exists: boolean): string | undefined {
  if (rendered.includes(path))
    return 'is also a rendered file of testPlan.files. Give the rendered file another path, or remove it from authored';
  if (!isTestPath(path))
    return 'is not named as a test. Keep it under test/, tests/ or __tests__/, or name it *.test.* or *.spec.*, as the runner finds tests';
  if (!exists)
    return 'does not exist in the workspace. Write the test file first, or fix the path: the run lists its cases before the Coder starts';
  return undefined;
}

/**
 * Derives the manifest from a ticket with no model. Every path is checked first
 * (ticketPathProblems): the first problem stops it, with the ticket's path and the field.
 */
export async function buildManifest({ ticket, ticketPath, workspace, diagnostics }: ManifestInputs): Promise<Manifest> {
  const [problem] = await ticketPathProblems(ticket, ticketPath, workspace);
  if (problem) throw new UserInputError(`${ticketPath}: ${problem.message}`);
  // The Coder is shown, and every attempt judged by, the visible plan; the held-out cases judge only an attempt that passes it.
  const { visible, heldOut } = splitHeldOut(ticket);
  const testFiles = [...visible.files.map((f) => normalizeRelPath(f.path)), ...authoredTests(visible).map((a) => a.path)];
  const write: ScopedFile[] = [];
  for (const raw of ticket.scope.write) {
    const p = normalizeRelPath(raw);
    write.push({ path: p, exists: await workspace.exists(p) });
  }
  const read: ScopedFile[] = ticket.scope.read.map((raw) => ({ path: normalizeRelPath(raw), exists: true }));
  const firstTest = testFiles[0] ?? '';
  const { runner, pkg } = await detectRunnerFor(workspace, firstTest, ticket.testPlan.framework);
  const testLanguage = /\.m?tsx?$|\.cts$/.test(firstTest) ? 'ts' : 'js';
  const moduleKind = /\.mjs$|\.mts$/.test(firstTest) || (pkg?.type === 'module' && !/\.c[jt]s$/.test(firstTest)) ? 'esm' : 'cjs';
  // Facts come only from a language service: with none, nothing is claimed either way.
  const facts = [];
  if (diagnostics) {
    for (const ref of ticket.refs) {
      const file = normalizeRelPath(ref.file);
      facts.push({ file, symbol: ref.symbol, signature: await diagnostics.resolveSymbol(file, ref.symbol) });
    }
  }
  return Manifest.parse({
    version: 1,
    ticketId: ticket.id,
    ticketPath,
    title: ticket.title,
    description: ticket.description,
    scope: { write, read },
    acceptance: ticket.acceptance,
    runner,
    testPlan: visible,
    heldOut,
    testFiles,
    testLanguage,
    moduleKind,
    refs: ticket.refs,
    ops: ticket.ops,
    facts,
  });
}

export function manifestHash(manifest: Manifest, hash: HashFn): string {
  return hash(serializeManifest(manifest));
}
