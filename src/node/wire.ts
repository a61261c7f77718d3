import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ModelContractError, UserInputError } from '../core/errors';
import type { GateSettings } from '../core/stages/common/gateConfig';
import type { ModelPort } from '../core/ports/model';
import type { DiagnosticsPort } from '../core/ports/checks';
import type { RunEventListener } from '../core/run/runLog';
import { OverlayCandidateChecks } from './candidates/overlayCandidateChecks';
import { workerParser, workerWorkspaceDiagnostics, workerWorkspaceLanguage } from './diagnostics/workerPorts';
import { nodeGates } from './gates/wireGates';
import { EslintLinter } from './lint/eslintLinter';
import { anthropicKeyFrom, createAnthropicProviderFromEnv } from './models/anthropic';
import { loadScriptedModel, scriptPosition } from './models/scripted';
import { earlierChangeCause } from './models/scripted/likelyCause';
import { FileRunStore, sha256, STATE_DIR } from './store/fileRunStore';
import { KEPT_BASELINES_VAR, KeptBaselineStore } from './store/keptBaselineStore';
import { systemClock } from './store/systemClock';
import { thisHost } from './store/processAlive';
import { ProcessTestRunner } from './testRunners/testRunner';
import { TestTree } from './testRunners/testTree';
import { TreeCommands, TreeTestRunner, type UserSaves } from './testRunners/treeTestRunner';
import { JudgingTools, type JudgingToolsOptions } from './testRunners/judgingTools';
import { KeptTransforms } from './testRunners/keptTransforms';
import { installedPackageEntries } from './sandbox/installedPackages';
import { ProcessJail } from './sandbox/processJail';
import { childEnvironment } from './sandbox/childEnv';
import { Redactor } from './sandbox/redactor';
import { redactingModel } from './sandbox/redactingModel';
import { FsWorkspace } from './workspace/fsWorkspace';
import { NodeEnvironment } from './workspace/environment';
import { baselineFingerprint } from './workspace/baselineFingerprint';
import type { WiredDeps } from './runResources';
import { packageRoot } from './packageRoot';

export { packageRoot };

export type ModelChoice = 'scripted' | 'anthropic' | 'none';

/** A model for commands that need none (rollback): any call is a bug, said clearly. */
const noModel: ModelPort = {
  info: { provider: 'scripted', model: 'none', scripted: true },
  complete: () => Promise.reject(new ModelContractError('this command makes no model calls')),
};

export interface WireOptions {
  workspaceRoot: string;
  model: ModelChoice;
  /** Needed for the scripted model: its script sits beside the ticket. */
  ticketPath?: string;
  /**
   * The run this command goes on with (resume, an accepted correction): the scripted model
   * reads its script on from where that run's log leaves it.
   */
  continuesRun?: string;
  env: Readonly<Record<string, string | undefined>>;
  onEvent?: RunEventListener;
  testTimeoutMs?: number;
  /** Replaces the detected test runner with a shell command (files appended). */
  testCommand?: string;
  /** The node that runs the tests; the editor passes 'node' (its execPath is Electron). */
  nodePath?: string;
  /** A model built by the caller (tests, the editor's vscode.lm), instead of `model`. */
  modelPort?: ModelPort;
  /** Wraps the model before the redaction (a batch's ticket asks its batch before each call). */
  wrapModel?: (model: ModelPort) => ModelPort;
  /** The end-of-ticket gates to run; none when absent (the CLI and the editor pass theirs). */
  gates?: GateSettings;
  /** Variables the user passes to tests by name (`--pass-env`, `ticketRunner.passEnv`), secret-looking or not. */
  passEnv?: readonly string[];
  /** Stop before the run when the OS sandbox cannot start (`--require-sandbox`, `ticketRunner.requireSandbox`). */
  requireSandbox?: boolean;
  /**
   * Run with no OS sandbox, saying why: for the tests of what must hold on a machine that has
   * none (the oracle's hashes, the allowlisted environment), which the sandbox would otherwise mask.
   */
  withoutSandbox?: string;
  /** How the record of the tools that judge the tests keeps its copies (its tests lower the budget). */
  judgingTools?: Pick<JudgingToolsOptions, 'copyBudget'>;
  /** The editor's record of the user's saves, which tells them from a test command's writes without the sandbox. */
  userSaves?: UserSaves;
  /** Where the baselines kept between runs are: `.ticket-runner/baselines`, unless KEPT_BASELINES_VAR in `env` names another. */
  keptBaselinesDir?: string;
}

/** What no process of the run may write: the run store, the tickets and their scripts, the ticket itself, the installed packages. */
/** Set to `off`, runs go on without the OS sandbox, as where it cannot start (the other protections stay). */
export const SANDBOX_VAR = 'TICKET_RUNNER_SANDBOX';

function protectedPaths(root: string, ticketPath: string | undefined, installed = installedPackageEntries(root)): string[] {
  return [...['.ticket-runner', '.tickets', ...(ticketPath ? [ticketPath] : [])].map((p) => path.join(root, p)), ...installed];
}

/**
 * The extension bundles TypeScript into one file: its lib.*.d.ts files are copied beside it, and
 * without them a language service there would know no global type (its probes would be noise).
 */
function typescriptLibDir(dist: string): string | undefined {
  return existsSync(path.join(dist, 'typescript-lib', 'lib.d.ts')) ? path.join(dist, 'typescript-lib') : undefined;
}

/**
 * The language service's worker thread, as the build ships it. TypeScript builds a program
 * synchronously, for seconds on a real project: in the caller's thread that would freeze the
 * CLI's progress, the ticket server's answers and, in the editor, every extension of the window.
 */
const languageWorker = (dist: string): string => path.join(dist, 'languageWorker.js');

/**
 * What checking a ticket needs, and no more (validate, render): the workspace, read through
 * the same port as a run, and the headless language service (one per package in a monorepo,
 * in a worker thread) when the workspace has a tsconfig.
 * Nothing runs the workspace's code.
 */
export function wireTicketChecks(workspaceRoot: string): { workspace: FsWorkspace; diagnostics?: DiagnosticsPort } {
  const root = path.resolve(workspaceRoot);
  const dist = path.join(packageRoot(), 'dist');
  // A ticket's checks only: its rendered tests stay in the program between keystrokes.
  return {
    workspace: new FsWorkspace(root),
    diagnostics: workerWorkspaceDiagnostics(root, { script: languageWorker(dist), libDir: typescriptLibDir(dist), keepProbes: true }),
  };
}

/**
 * The model `draft` asks: the run's own providers, outside any run. The scripted one (a test
 * and demo tool) replays the `drafter` answers of the script given, else of the drafted
 * ticket's own script (`.tickets/<ID>.script.json`).
 */
export function wireDraftModel(o: {
  workspaceRoot: string;
  model: ModelChoice;
  ticketPath: string;
  scriptPath?: string;
  env: Readonly<Record<string, string | undefined>>;
}): ModelPort {
  if (o.model === 'anthropic') return createAnthropicProviderFromEnv(o.env);
  if (o.model === 'scripted') return loadScriptedModel(path.resolve(o.workspaceRoot), o.scriptPath ?? o.ticketPath);
  throw new UserInputError('a draft needs a model: --model anthropic or scripted');
}

/**
 * Fails as wiring `o` would for want of something the user must give (the Anthropic key), but
 * before anything is written: a command checks it before it takes the workspace's lock.
 */
export function checkModelChoice(o: Pick<WireOptions, 'model' | 'modelPort' | 'env'>): void {
  if (!o.modelPort && o.model === 'anthropic') anthropicKeyFrom(o.env);
}

/**
 * Builds the pipeline's dependencies for a workspace on disk: the headless wiring the CLI,
 * the demo and the tests share, and the extension's `depsForFolder` (src/vscode/deps.ts) builds
 * on. Heavy adapters (TypeScript, Tree-sitter) load lazily; the language services (the
 * diagnostics' and the ops', sharing one worker thread and what it parsed) run off this thread.
 */
export async function wireNodeDeps(o: WireOptions): Promise<WiredDeps> {
  const root = path.resolve(o.workspaceRoot);
  const pkgRoot = packageRoot();
  const dist = path.join(pkgRoot, 'dist');
  const fromModules = (p: string) => path.join(pkgRoot, 'node_modules', p);
  const wasmDir = existsSync(path.join(dist, 'tree-sitter-typescript.wasm')) ? dist : fromModules('tree-sitter-typescript');
  const runtimeWasmDir = existsSync(path.join(dist, 'web-tree-sitter.wasm')) ? dist : fromModules('web-tree-sitter');
  const libDir = typescriptLibDir(dist);
  const store = new FileRunStore(root);
  let model: ModelPort;
  if (o.modelPort) model = o.modelPort;
  else if (o.model === 'anthropic') model = createAnthropicProviderFromEnv(o.env);
  else if (o.model === 'scripted') {
    if (!o.ticketPath) throw new UserInputError('the scripted model needs the ticket path to find its script');
    const start = o.continuesRun === undefined ? undefined : scriptPosition(o.continuesRun, (await store.load(o.continuesRun)).events);
    model = loadScriptedModel(root, o.ticketPath, start, () => earlierChangeCause(root, store, o.ticketPath));
  } else model = noModel;
  if (o.wrapModel) model = o.wrapModel(model);
  const parser = workerParser({ script: languageWorker(dist), wasmDir, runtimeWasmDir });
  const language = workerWorkspaceLanguage({ script: languageWorker(dist), root, wasmDir, runtimeWasmDir, libDir });
  // Children pick from this process's environment; every secret-looking value of it, and any
  // key the caller holds (the editor's SecretStorage key arrives in o.env), is scrubbed.
  const redactor = Redactor.fromEnv({ ...process.env, ...o.env });
  // The runners' own packages: read-only in the sandbox, which keeps them as installed.
  const installed = installedPackageEntries(root);
  const withoutSandbox = o.withoutSandbox ?? (process.env[SANDBOX_VAR] === 'off' ? `turned off by ${SANDBOX_VAR}=off` : undefined);
  const jail = await ProcessJail.open({
    root,
    protect: protectedPaths(root, o.ticketPath, installed),
    parentEnv: process.env,
    pass: o.passEnv,
    redactor,
    requireSandbox: o.requireSandbox,
    withoutSandbox,
  });
  // One record for the run: whichever of its runners finds the tools changed, every other one sees it.
  const judgingTools = new JudgingTools(root, {
    sandboxed: jail.status.on,
    fallbackDirs: [pkgRoot],
    readOnly: installed,
    ...o.judgingTools,
  });
  // tsx's cache kept between runs, beside the run store, which no test command may write.
  const keptTransforms = new KeptTransforms({ dir: path.join(root, STATE_DIR, 'transforms') });
  const testRunner = (dir: string, inJail: ProcessJail, packagesOf?: string) =>
    new ProcessTestRunner({
      keptTransforms,
      ...(packagesOf === undefined ? {} : { sideEffects: { packagesOf } }),
      judgingTools,
      root: dir,
      nodeTestReporter: path.join(dist, 'nodeTestReporter.mjs'),
      fallbackDir: pkgRoot,
      nodePath: o.nodePath ?? process.execPath,
      commandOverride: o.testCommand,
      jail: inJail,
    });
  // The test commands run in a copy of the workspace, which they write instead of the user's files (testTree.ts).
  const tree = new TestTree(root);
  // The copy holds no run store, and no command there can write the workspace's packages: only the tickets are kept read-only.
  const treeJail = jail.at(
    tree.dir,
    protectedPaths(tree.dir, o.ticketPath, []).filter((p) => path.basename(p) !== '.ticket-runner'),
  );
  const inTree = new TreeCommands({ tree, sandboxed: jail.status.on, userSaves: o.userSaves });
  // ESLint's config and plugins are the workspace's code: they run in a worker in the same jail.
  const linter = (dir: string, inJail: ProcessJail) =>
    new EslintLinter(dir, {
      workerScript: path.join(dist, 'eslintWorker.js'),
      jail: inJail,
      nodePath: o.nodePath ?? process.execPath,
      timeoutMs: o.testTimeoutMs,
    });
  return {
    workspace: new FsWorkspace(root),
    workspaceRoot: root,
    store,
    clock: systemClock,
    hash: sha256,
    model: redactingModel(model, redactor),
    tests: new TreeTestRunner(testRunner(tree.dir, treeJail, root), inTree),
    parser,
    diagnostics: language.diagnostics,
    lint: linter(root, jail),
    ops: language.ops,
    // Rung 4's run_tests: the same checks, bound to a scratch copy of the workspace kept for the run.
    candidates: new OverlayCandidateChecks({
      root,
      makeChecks: (dir, scratchJail = jail.at(dir, protectedPaths(dir, o.ticketPath))) => ({
        tests: testRunner(dir, scratchJail),
        parser,
        diagnostics: workerWorkspaceDiagnostics(dir, { script: languageWorker(dist), libDir }),
        lint: linter(dir, scratchJail),
      }),
    }),
    gates:
      o.gates &&
      nodeGates(o.gates, {
        root,
        pkgRoot,
        dist,
        nodePath: o.nodePath ?? process.execPath,
        jail,
        judgingTools,
        tests: { commands: inTree, jail: treeJail },
      }),
    testTimeoutMs: o.testTimeoutMs,
    onEvent: o.onEvent,
    owner: { pid: process.pid, host: thisHost() },
    environment: new NodeEnvironment(root),
    keptBaselines: new KeptBaselineStore({
      dir: o.keptBaselinesDir ?? o.env[KEPT_BASELINES_VAR] ?? path.join(root, STATE_DIR, 'baselines'),
      fingerprint: (signal) =>
        baselineFingerprint(
          {
            root,
            env: childEnvironment(process.env, { pass: o.passEnv, home: '', tmp: '' }),
            nodePath: o.nodePath ?? process.execPath,
            productDir: dist,
            settings: { sandbox: jail.status.on, testCommand: o.testCommand ?? null },
            worker: existsSync(path.join(dist, 'fingerprintWorker.js')) ? path.join(dist, 'fingerprintWorker.js') : undefined,
          },
          signal,
        ),
    }),
    sandbox: jail.status,
    redact: redactor.empty ? undefined : (text) => redactor.text(text),
    jail,
    parserWorker: parser,
  };
}
