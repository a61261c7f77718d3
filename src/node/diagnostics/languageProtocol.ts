import { z } from 'zod';
import { AppliedFix, CodeDiagnostic, ParseProblem } from '../../core/schema/checks';
import { TicketOp } from '../../core/schema/ticket';

/**
 * The messages between a language service's worker thread (`workers/languageWorker.ts`) and its caller
 * (`LanguageWorker`, `workerPorts.ts`). Each side parses what the other posts with these
 * schemas: the two are separate builds, and a mismatch is an error, never an answer believed.
 */

/** What a worker serves, fixed when it starts (its `workerData`). */
export const LanguageWorkerData = z.discriminatedUnion('service', [
  z.object({
    /** The DiagnosticsPort of a workspace: one language service, or one per package of a monorepo. */
    service: z.literal('diagnostics'),
    root: z.string(),
    libDir: z.string().optional(),
    keepProbes: z.boolean().optional(),
    fixNames: z.array(z.string()).optional(),
    maxFixes: z.number().optional(),
    /** Set by the caller to the id of a call it cancelled: read while the service is busy. */
    cancelled: z.instanceof(SharedArrayBuffer),
  }),
  z.object({
    /** The OpsPort: Tree-sitter and the ops' own language service. */
    service: z.literal('ops'),
    root: z.string(),
    tsconfig: z.string().optional(),
    libDir: z.string().optional(),
    wasmDir: z.string(),
    runtimeWasmDir: z.string().optional(),
    cancelled: z.instanceof(SharedArrayBuffer),
  }),
  z.object({
    /**
     * Both of a workspace's services, diagnostics and ops, in one thread: they share the files
     * TypeScript parsed (lib.d.ts, the packages' types, the project), which a second thread parses again.
     */
    service: z.literal('workspace'),
    root: z.string(),
    libDir: z.string().optional(),
    wasmDir: z.string(),
    runtimeWasmDir: z.string().optional(),
    cancelled: z.instanceof(SharedArrayBuffer),
  }),
  z.object({
    /** The ParserPort: Tree-sitter alone (a large file's parse and shape take long enough to be felt). */
    service: z.literal('syntax'),
    wasmDir: z.string(),
    runtimeWasmDir: z.string().optional(),
    cancelled: z.instanceof(SharedArrayBuffer),
  }),
]);
export type LanguageWorkerData = z.infer<typeof LanguageWorkerData>;

const Overlay = z.object({ path: z.string(), content: z.string() });
const OpScope = z.object({ write: z.array(z.string()), read: z.array(z.string()), tests: z.array(z.string()) });
const OpEdit = z.object({ path: z.string(), before: z.string(), after: z.string() });
const OpFix = z.union([
  z.object({ kind: z.literal('scopeAddition'), paths: z.array(z.string()) }),
  z.object({ kind: z.literal('opEdit'), op: TicketOp, summary: z.string() }),
]);
const OpResult = z.union([
  z.object({ ok: z.literal(true), edits: z.array(OpEdit) }),
  z.object({
    ok: z.literal(false),
    reason: z.string(),
    suggestion: z.string(),
    at: z.object({ file: z.string(), line: z.number() }).optional(),
    proposal: OpFix.optional(),
  }),
]);
const Checked = z.object({ checkedFiles: z.array(z.string()), diagnostics: z.array(CodeDiagnostic), checkedBy: z.string().optional() });

/** Every call a worker answers: its parameters and its result, by method. */
export const METHODS = {
  check: { params: z.object({ changed: z.array(z.string()) }), result: Checked },
  autofix: {
    params: z.object({ files: z.array(z.string()) }),
    result: z.object({ applied: z.array(AppliedFix), refused: z.array(AppliedFix) }),
  },
  probe: { params: z.object({ path: z.string(), content: z.string(), overlays: z.array(Overlay) }), result: z.array(CodeDiagnostic) },
  resolveSymbol: { params: z.object({ file: z.string(), symbol: z.string() }), result: z.string().nullable() },
  symbolsOf: {
    params: z.object({ file: z.string(), owner: z.string().optional() }),
    result: z.array(z.object({ name: z.string(), type: z.string() })),
  },
  apply: { params: z.object({ op: TicketOp, scope: OpScope }), result: OpResult },
  /** Loads what later calls need (the ops' service; the parser's grammars for these paths). */
  warm: { params: z.object({ paths: z.array(z.string()).optional() }), result: z.null() },
  parse: { params: z.object({ path: z.string(), content: z.string() }), result: z.array(ParseProblem) },
  shape: { params: z.object({ path: z.string(), content: z.string() }), result: z.array(z.string()) },
} satisfies Record<string, { params: z.ZodType; result: z.ZodType }>;
export type Method = keyof typeof METHODS;
export type ParamsOf<M extends Method> = z.infer<(typeof METHODS)[M]['params']>;
export type ResultOf<M extends Method> = z.infer<(typeof METHODS)[M]['result']>;
/** A method's schemas, for a method known only at run time. */
export const paramsOf = (m: Method): z.ZodType<unknown> => METHODS[m].params;
export const resultOf = (m: Method): z.ZodType<unknown> => METHODS[m].result;

/** What the caller posts to the worker. */
export const ToWorker = z.discriminatedUnion('type', [
  /** A call; its `params` are checked against its method's schema by the worker. */
  z.object({ type: z.literal('call'), id: z.number(), method: z.enum(Object.keys(METHODS) as [Method, ...Method[]]), params: z.unknown() }),
  /** The call was cancelled: a queued one is dropped, a running one stops where TypeScript looks. */
  z.object({ type: z.literal('cancel'), id: z.number() }),
  /** The caller's answer to an `allow` question of an autofix call. */
  z.object({ type: z.literal('allowed'), ask: z.number(), allowed: z.boolean() }),
  /** An idle worker is handed to another caller: its services are made anew from this start data (see `restart`). */
  z.object({ type: z.literal('restart'), start: LanguageWorkerData }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

/** What the worker posts back. */
export const FromWorker = z.discriminatedUnion('type', [
  /** A call's result; the caller checks it against the method's schema. */
  z.object({ type: z.literal('done'), id: z.number(), result: z.unknown() }),
  /** A call that threw: `cancelled` when it was cancelled, else the error's message. */
  z.object({ type: z.literal('failed'), id: z.number(), cancelled: z.boolean(), message: z.string() }),
  /** An autofix call asks whether a fix may touch these files (the caller's `allow`, which stays on its thread). */
  z.object({ type: z.literal('allow'), id: z.number(), ask: z.number(), paths: z.array(z.string()) }),
]);
export type FromWorker = z.infer<typeof FromWorker>;
