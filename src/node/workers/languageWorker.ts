/**
 * The language service's worker thread: the headless DiagnosticsPort (or the OpsPort, or the
 * parser) runs here, built to `dist/languageWorker.js` and started by `LanguageWorker`
 * (`diagnostics/workerPorts.ts`). It hosts the services of three folders (diagnostics, ops, parse),
 * so it sits in none of them, and none of them imports it. It is a thread of its own so that
 * TypeScript's synchronous work (building a program takes seconds on a real project) never holds
 * the thread of the CLI, the ticket server or the editor's extension host. It serves one call at a
 * time, in the order they came, and gives the same answers as the service in the caller's thread.
 */
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { CancelledError, errorMessage, isAbort } from '../../core/errors';
import { checkToolOutput, issuesLine } from '../../core/schema/toolOutput';
import { FromWorker, LanguageWorkerData, paramsOf, ToWorker, type Method, type ParamsOf, type ResultOf } from '../diagnostics/languageProtocol';

const port = parentPort;
if (!port) throw new Error('the language worker runs as a worker thread (node:worker_threads)');

let data = checkToolOutput(LanguageWorkerData, workerData, 'the language worker was started with something that is not its start data');
let cancelled = new Int32Array(data.cancelled);
/** The call running now: TypeScript's cancellation token reads the shared flag against it. */
let current = 0;
const interrupted = () => current !== 0 && Atomics.load(cancelled, 0) === current;
/** Beside dist/typescript.js, which this bundle loads: its lib files, when the caller named none. */
const bundledLibDir = existsSync(join(__dirname, 'typescript-lib', 'lib.d.ts')) ? join(__dirname, 'typescript-lib') : undefined;
const libDirOf = (d: { libDir?: string }): string | undefined => d.libDir ?? bundledLibDir;

const post = (message: FromWorker) => port.postMessage(message);

let asks = 0;
const answers = new Map<number, (allowed: boolean) => void>();
/** The caller's `allow` for one file of a fix, asked across the threads. */
const allowOf = (id: number) => (path: string) =>
  new Promise<boolean>((resolve) => {
    const ask = ++asks;
    answers.set(ask, resolve);
    post({ type: 'allow', id, ask, paths: [path] });
  });

/**
 * What a worker answers: one service, or a workspace's two (diagnostics and ops); any other call
 * is an error. `dispose` lets go of the services when the worker is handed to another run.
 */
type Handlers = { [M in Method]?: (params: ParamsOf<M>, id: number, signal: AbortSignal) => Promise<ResultOf<M>> } & { dispose?: () => void };

/** The registry the TypeScript services of this worker share (see WorkspaceHost's versions). */
type Registry = ReturnType<(typeof import('../diagnostics/languageService.js'))['newDocumentRegistry']>;

let registry: Registry | undefined;
/**
 * One registry for every service this worker serves, run after run (see `restart`). Through a
 * module of this bundle: an import() of TypeScript itself would go through Node's ES module
 * loader, which scans all of typescript.js for its exports (about half a second of CPU).
 */
async function sharedRegistry(): Promise<Registry> {
  const { newDocumentRegistry } = await import('../diagnostics/languageService.js');
  const { isLibraryFile, keepingLibraries } = await import('../diagnostics/keptLibraries.js');
  // The root of the run that lets go: a restart disposes the last run's services before it moves on.
  return (registry ??= keepingLibraries(newDocumentRegistry(), (path) => isLibraryFile(path, 'root' in data ? data.root : '/')));
}

// Each service's modules load when its worker starts: a syntax worker never loads TypeScript.
async function diagnosticsHandlers(d: Pick<Extract<LanguageWorkerData, { service: 'diagnostics' }>, 'root' | 'keepProbes' | 'fixNames' | 'maxFixes' | 'libDir'>, shared: Registry): Promise<Handlers> {
  const { projectDiagnostics } = await import('../diagnostics/packageDiagnostics.js');
  const options = { libDir: libDirOf(d), keepProbes: d.keepProbes, fixNames: d.fixNames, maxFixes: d.maxFixes, interrupted, registry: shared };
  // The caller found a tsconfig.json (or a monorepo) before it started this worker.
  const own = projectDiagnostics(d.root, options);
  return {
    check: (p, _id, signal) => own.check(p.changed, signal),
    autofix: (p, id, signal) => own.autofix(p.files, allowOf(id), signal),
    probe: (p, _id, signal) => own.probe(p.path, p.content, signal, p.overlays),
    resolveSymbol: (p) => own.resolveSymbol(p.file, p.symbol),
    symbolsOf: (p) => own.symbolsOf(p.file, p.owner),
    dispose: () => own.dispose(),
  };
}

async function opsHandlers(d: Omit<Extract<LanguageWorkerData, { service: 'ops' }>, 'service' | 'cancelled'>, shared: Registry): Promise<Handlers> {
  const { NodeOps } = await import('../ops/nodeOps.js');
  const ops = new NodeOps({ root: d.root, tsconfig: d.tsconfig, libDir: libDirOf(d), wasmDir: d.wasmDir, runtimeWasmDir: d.runtimeWasmDir, interrupted, registry: shared });
  return {
    apply: (p, _id, signal) => ops.apply(p.op, p.scope, signal),
    warm: async (_p, _id, signal) => {
      await ops.warm(signal);
      return null;
    },
    dispose: () => ops.dispose(),
  };
}

async function syntaxHandlers(d: Extract<LanguageWorkerData, { service: 'syntax' }>): Promise<Handlers> {
  const { TreeSitterParser } = await import('../parse/treeSitterParser.js');
  const parser = new TreeSitterParser({ wasmDir: d.wasmDir, runtimeWasmDir: d.runtimeWasmDir });
  return {
    parse: (p) => parser.parse(p.path, p.content),
    shape: (p) => parser.shape(p.path, p.content),
    // Each grammar loads at its first file: an empty one of each kind loads them ahead.
    warm: async (p) => {
      for (const path of new Set((p.paths ?? []).map((f) => `warm${extname(f)}`))) await parser.parse(path, '');
      return null;
    },
  };
}

async function workspaceHandlers(d: Extract<LanguageWorkerData, { service: 'workspace' }>, shared: Registry): Promise<Handlers> {
  const [diagnostics, ops] = await Promise.all([diagnosticsHandlers(d, shared), opsHandlers(d, shared)]);
  return {
    ...diagnostics,
    ...ops,
    dispose: () => {
      diagnostics.dispose?.();
      ops.dispose?.();
    },
  };
}

async function handlersOf(d: LanguageWorkerData): Promise<Handlers> {
  switch (d.service) {
    case 'diagnostics':
      return diagnosticsHandlers(d, await sharedRegistry());
    case 'ops':
      return opsHandlers(d, await sharedRegistry());
    case 'workspace':
      return workspaceHandlers(d, await sharedRegistry());
    case 'syntax':
      return syntaxHandlers(d);
  }
}

let handlers = handlersOf(data);
// A service that cannot load fails every call with its reason, rather than the worker with none.
handlers.catch(() => undefined);

/**
 * The worker is handed to another run (LanguageWorker keeps idle workers): the last run's
 * services let go of their files, and the new run's are made from its start data. What stays is
 * what cannot differ between runs: the loaded (and compiled) modules, and the libraries' parsed
 * files in the shared registry, each reused only for the same text under the same settings.
 */
async function restart(start: LanguageWorkerData): Promise<void> {
  const last = await handlers.catch(() => undefined);
  try {
    last?.dispose?.();
  } catch {
    // A service that fails to let go leaves only its files in the registry: the new run's
    // services are still made, and this call, in the queue, must not stop the calls after it.
  }
  data = start;
  cancelled = new Int32Array(start.cancelled);
  handlers = handlersOf(start);
  handlers.catch(() => undefined);
}

/** The calls not yet answered, by id, each with the abort its `cancel` message pulls. */
const open = new Map<number, AbortController>();

async function serve(id: number, method: Method, raw: unknown): Promise<void> {
  const controller = open.get(id);
  if (!controller) return;
  try {
    if (controller.signal.aborted) throw new CancelledError(`${method} cancelled`);
    const params = checkToolOutput(paramsOf(method), raw, `the language worker got a ${method} call it cannot read`);
    current = id;
    const handler = (await handlers)[method] as ((p: typeof params, id: number, signal: AbortSignal) => Promise<unknown>) | undefined;
    if (!handler) throw new Error(`the ${data.service} worker answers no ${method} call`);
    post({ type: 'done', id, result: await handler(params, id, controller.signal) });
  } catch (err) {
    post({ type: 'failed', id, cancelled: err instanceof CancelledError || isAbort(err), message: errorMessage(err) });
  } finally {
    current = 0;
    open.delete(id);
  }
}

// One call at a time: a check yields between files, and another call must not run in its gaps.
let queue = Promise.resolve();
port.on('message', (raw: unknown) => {
  const parsed = ToWorker.safeParse(raw);
  if (!parsed.success) {
    // Only the caller posts here: a message it cannot have meant fails its call, if it names one.
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id === 'number') post({ type: 'failed', id, cancelled: false, message: `the language worker got a message it cannot read: ${issuesLine(parsed.error)}` });
    return;
  }
  const message = parsed.data;
  if (message.type === 'restart') {
    queue = queue.then(() => restart(message.start));
  } else if (message.type === 'allowed') {
    answers.get(message.ask)?.(message.allowed);
    answers.delete(message.ask);
  } else if (message.type === 'cancel') {
    open.get(message.id)?.abort();
  } else {
    open.set(message.id, new AbortController());
    queue = queue.then(() => serve(message.id, message.method, message.params));
  }
});
