/**
 * The language service's worker thread: the headless DiagnosticsPort (or the OpsPort, or the
 * parser) runs here, built to `dist/languageWorker.js` and started by `LanguageWorker`
 * (`diagnostics/workerPorts.ts`). This entry is the thread's wiring: it hands the services of three
 * folders (diagnostics, ops, parse) to the calls' loop (`languageCalls.ts`), so it sits in none of
 * them, and none of them imports it. It is a thread of its own so that TypeScript's synchronous
 * work (building a program takes seconds on a real project) never holds the thread of the CLI, the
 * ticket server or the editor's extension host. It gives the same answers as the service in the
 * caller's thread.
 */
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { LanguageWorkerData } from '../diagnostics/languageProtocol';
import { serveLanguageCalls, type Handlers, type LanguageCalls } from './languageCalls';

/** Beside dist/typescript.js, which this bundle loads: its lib files, when the caller named none. */
const bundledLibDir = existsSync(join(__dirname, 'typescript-lib', 'lib.d.ts')) ? join(__dirname, 'typescript-lib') : undefined;
const libDirOf = (d: { libDir?: string }): string | undefined => d.libDir ?? bundledLibDir;

/** The registry the TypeScript services of this worker share (see WorkspaceHost's versions). */
type Registry = ReturnType<(typeof import('../diagnostics/languageService.js'))['newDocumentRegistry']>;

let registry: Registry | undefined;
/**
 * The root of the run whose services are served, whose own files are never kept as libraries: a
 * restart lets go of the last run's services before it makes the next run's (`languageCalls.ts`).
 */
let runRoot = '/';
/**
 * One registry for every service this worker serves, run after run (see `restart`, `languageCalls.ts`). Through a
 * module of this bundle: an import() of TypeScript itself would go through Node's ES module
 * loader, which scans all of typescript.js for its exports (about half a second of CPU).
 */
async function sharedRegistry(): Promise<Registry> {
  const { newDocumentRegistry } = await import('../diagnostics/languageService.js');
  const { isLibraryFile, keepingLibraries } = await import('../diagnostics/keptLibraries.js');
  return (registry ??= keepingLibraries(newDocumentRegistry(), (path) => isLibraryFile(path, runRoot)));
}

// Each service's modules load when its worker starts: a syntax worker never loads TypeScript.
async function diagnosticsHandlers(
  d: Pick<Extract<LanguageWorkerData, { service: 'diagnostics' }>, 'root' | 'keepProbes' | 'fixNames' | 'maxFixes' | 'libDir'>,
  shared: Registry,
  calls: LanguageCalls,
): Promise<Handlers> {
  const { projectDiagnostics } = await import('../diagnostics/packageDiagnostics.js');
  const options = {
    libDir: libDirOf(d),
    keepProbes: d.keepProbes,
    fixNames: d.fixNames,
    maxFixes: d.maxFixes,
    interrupted: calls.interrupted,
    registry: shared,
  };
  // The caller found a tsconfig.json (or a monorepo) before it started this worker.
  const own = projectDiagnostics(d.root, options);
  return {
    check: (p, _id, signal) => own.check(p.changed, signal),
    autofix: (p, id, signal) => own.autofix(p.files, calls.allowOf(id), signal),
    probe: (p, _id, signal) => own.probe(p.path, p.content, signal, p.overlays),
    resolveSymbol: (p) => own.resolveSymbol(p.file, p.symbol),
    symbolsOf: (p) => own.symbolsOf(p.file, p.owner),
    dispose: () => own.dispose(),
  };
}

async function opsHandlers(
  d: Omit<Extract<LanguageWorkerData, { service: 'ops' }>, 'service' | 'cancelled'>,
  shared: Registry,
  calls: LanguageCalls,
): Promise<Handlers> {
  const { NodeOps } = await import('../ops/nodeOps.js');
  const ops = new NodeOps({
    root: d.root,
    tsconfig: d.tsconfig,
    libDir: libDirOf(d),
    wasmDir: d.wasmDir,
    runtimeWasmDir: d.runtimeWasmDir,
    interrupted: calls.interrupted,
    registry: shared,
  });
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

async function workspaceHandlers(
  d: Extract<LanguageWorkerData, { service: 'workspace' }>,
  shared: Registry,
  calls: LanguageCalls,
): Promise<Handlers> {
  const [diagnostics, ops] = await Promise.all([diagnosticsHandlers(d, shared, calls), opsHandlers(d, shared, calls)]);
  return {
    ...diagnostics,
    ...ops,
    dispose: () => {
      diagnostics.dispose?.();
      ops.dispose?.();
    },
  };
}

/** A run's services, for its start data: called again for each run the worker is handed to. */
async function handlersOf(d: LanguageWorkerData, calls: LanguageCalls): Promise<Handlers> {
  runRoot = 'root' in d ? d.root : '/';
  switch (d.service) {
    case 'diagnostics':
      return diagnosticsHandlers(d, await sharedRegistry(), calls);
    case 'ops':
      return opsHandlers(d, await sharedRegistry(), calls);
    case 'workspace':
      return workspaceHandlers(d, await sharedRegistry(), calls);
    case 'syntax':
      return syntaxHandlers(d);
  }
}

serveLanguageCalls(handlersOf);
