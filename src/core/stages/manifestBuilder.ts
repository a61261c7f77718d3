import { UserInputError } from '../errors';
import type { HashFn } from '../ports/clock';
import type { DiagnosticsPort } from '../ports/checks';
import type { WorkspacePort } from '../ports/workspace';
import { Manifest, type ScopedFile, type TestRunnerSpec } from '../schema/manifest';
import type { TestFramework } from '../schema/testPlan';
import type { Ticket } from '../schema/ticket';
import { GENERATED_HEADER } from './materializer';
import { normalizeRelPath, testTargetProblem } from './paths';

interface PackageJson {
  type?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The runners' own config files, by framework; the first one found decides. */
export const RUNNER_CONFIGS: Readonly<Record<Exclude<TestFramework, 'node:test'>, readonly string[]>> = {
  vitest: ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.cts', 'vitest.config.js', 'vitest.config.mjs', 'vitest.config.cjs'],
  jest: ['jest.config.ts', 'jest.config.mts', 'jest.config.cts', 'jest.config.js', 'jest.config.mjs', 'jest.config.cjs', 'jest.config.json'],
  mocha: ['.mocharc.js', '.mocharc.cjs', '.mocharc.mjs', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'],
};
const FRAMEWORKS = ['vitest', 'jest', 'mocha'] as const;

/**
 * Detects the workspace's test framework from its own configuration, most specific first: a
 * runner's config file, then the command scripts.test runs, then a declared dependency (a
 * project moving from jest to vitest may still depend on both; its test script says which runs).
 */
export function detectRunner(pkg: PackageJson | null, declared: TestFramework | undefined, configFiles: readonly string[] = []): TestRunnerSpec {
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

/** Which of the runners' config files the workspace root holds. */
async function runnerConfigFiles(ws: WorkspacePort): Promise<string[]> {
  const found: string[] = [];
  for (const f of Object.values(RUNNER_CONFIGS).flat()) if (await ws.exists(f)) found.push(f);
  return found;
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

async function readPackageJson(ws: WorkspacePort): Promise<PackageJson | null> {
  const text = await ws.readFile('package.json');
  if (text === null) return null;
  try {
    return JSON.parse(text) as PackageJson;
  } catch {
    throw new UserInputError('package.json in the workspace is not valid JSON: fix it so the test framework can be detected');
  }
}

/**
 * Derives the manifest from a ticket with no model. Every path is checked: scope paths
 * must stay in the workspace, read paths must exist, and no test file may be writable.
 */
export async function buildManifest({ ticket, ticketPath, workspace, diagnostics }: ManifestInputs): Promise<Manifest> {
  const where = (field: string, p: string): string => {
    try {
      return normalizeRelPath(p);
    } catch (err) {
      throw new UserInputError(`${ticketPath}: ${field} path ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const testFiles = ticket.testPlan.files.map((f, i) => where(`testPlan.files[${i}].path`, f.path));
  for (const [i, p] of testFiles.entries()) {
    const content = await workspace.readFile(p);
    const existing = content === null ? 'none' : content.startsWith(GENERATED_HEADER[0]!) ? 'rendered' : 'other';
    const problem = testTargetProblem(p, existing, ticketPath);
    if (problem) {
      throw new UserInputError(
        `${ticketPath}: testPlan.files[${i}].path "${p}" ${problem}. A test plan may target a new test file, or an existing one (under test/, tests/ or __tests__/, or named *.test.* or *.spec.*): its file is rendered from scratch.`,
      );
    }
  }
  const write: ScopedFile[] = [];
  for (const [i, raw] of ticket.scope.write.entries()) {
    const p = where(`scope.write[${i}]`, raw);
    if (testFiles.includes(p)) {
      throw new UserInputError(`${ticketPath}: scope.write[${i}] "${p}" is a rendered test file; tests are read-only. Remove it from scope.write.`);
    }
    write.push({ path: p, exists: await workspace.exists(p) });
  }
  const read: ScopedFile[] = [];
  for (const [i, raw] of ticket.scope.read.entries()) {
    const p = where(`scope.read[${i}]`, raw);
    const exists = await workspace.exists(p);
    if (!exists) throw new UserInputError(`${ticketPath}: scope.read[${i}] "${p}" does not exist in the workspace. Fix the path or remove it.`);
    read.push({ path: p, exists });
  }
  const pkg = await readPackageJson(workspace);
  const runner = detectRunner(pkg, ticket.testPlan.framework, ticket.testPlan.framework ? [] : await runnerConfigFiles(workspace));
  const firstTest = testFiles[0] ?? '';
  const testLanguage = /\.m?tsx?$|\.cts$/.test(firstTest) ? 'ts' : 'js';
  const moduleKind = /\.mjs$|\.mts$/.test(firstTest) || (pkg?.type === 'module' && !/\.c[jt]s$/.test(firstTest)) ? 'esm' : 'cjs';
  // Facts come only from a language service: with none, nothing is claimed either way.
  const facts = [];
  if (diagnostics) {
    for (const ref of ticket.refs) {
      const file = where('refs.file', ref.file);
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
    testPlan: ticket.testPlan,
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
