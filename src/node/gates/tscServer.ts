/**
 * The type-check worker: a process of its own that loads the workspace's TypeScript (code the
 * workspace controls), started by TscTypeCheck through the run's ProcessJail, so it runs in the
 * OS sandbox with the allowlisted environment, frozen between checks. It reads one JSON request
 * per line on stdin and answers each with one JSON line on stdout (`tscProtocol.ts`).
 *
 * Why a worker: the baseline's check and the gate's each started tsc, and each parsed and bound
 * every file of the program again, lib.d.ts and the packages' types included, most of a check's
 * cost on a small project. This worker lives for the run and keeps what the last check parsed.
 *
 * Each check does what `tsc --noEmit -p <tsconfig> --pretty false --incremental` does, with the
 * same diagnostics, in the same order and words: the tsconfig read anew, every file read anew,
 * a new program with module resolution done afresh, and TypeScript's own incremental builder
 * deciding which files to check again from the last check's state, as it does from a build-info
 * file. What is kept is only what cannot differ: a file's parse, reused when its text is the same,
 * character for character, under the same compiler options. Nothing is written.
 */
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type * as TS from 'typescript';
import { requestFields } from '../sandbox/requestLine';
import type { TscAnswer, TscRequest } from './tscProtocol';
import { withOwnFastCheckTypes } from '../diagnostics/ownFastCheckTypes';

const answer = process.stdout.write.bind(process.stdout);
// What the workspace's TypeScript (or a plugin of it) prints goes to stderr, never among the answers.
process.stdout.write = process.stderr.write.bind<typeof process.stdout.write>(process.stderr);
console.log = console.info = console.debug = console.error;

interface Parsed {
  text: string;
  file: TS.SourceFile;
}

/** One tsconfig's state between checks. */
interface Project {
  /** The compiler options its files were parsed and bound under: other options start afresh. */
  optionsKey: string;
  builder: TS.EmitAndSemanticDiagnosticsBuilderProgram | undefined;
  /** The last program's files, by name and parse settings. */
  files: Map<string, Parsed>;
}

const projects = new Map<string, Project>();
let loaded: { dir: string; ts: typeof TS } | undefined;

/** The API a check uses: TypeScript 5 and 6 have it all. */
const NEEDED = [
  'createIncrementalCompilerHost',
  'createProgram',
  'createEmitAndSemanticDiagnosticsBuilderProgram',
  'getParsedCommandLineOfConfigFile',
  'getConfigFileParsingDiagnostics',
  'sortAndDeduplicateDiagnostics',
  'formatDiagnostics',
] as const;

function load(dir: string): typeof TS | string {
  if (loaded) return loaded.dir === dir ? loaded.ts : `this worker runs the TypeScript of ${loaded.dir}, not of ${dir}`;
  const ts = nodeModule.createRequire(join(dir, 'package.json'))(dir) as typeof TS;
  const missing = NEEDED.filter((name) => typeof (ts as unknown as Record<string, unknown>)[name] !== 'function');
  if (missing.length) return `TypeScript ${String(ts.version)} has no ${missing.join(', ')}`;
  loaded = { dir, ts };
  return ts;
}

/** The options as a key; the tsconfig's parsed tree is left out (its options are in). */
const keyOf = (options: TS.CompilerOptions): string => JSON.stringify(options, (k, v: unknown) => (k === 'configFile' ? undefined : v));

function check(r: TscRequest): TscAnswer {
  const ts = load(r.typescript);
  if (typeof ts === 'string') return { id: r.id, unsupported: ts };
  const sys = ts.sys;
  const format = (diagnostics: readonly TS.Diagnostic[], files: number, reused: number): TscAnswer => ({
    id: r.id,
    output: ts.formatDiagnostics(diagnostics, {
      getCurrentDirectory: () => sys.getCurrentDirectory(),
      getNewLine: () => sys.newLine,
      getCanonicalFileName: (f) => (sys.useCaseSensitiveFileNames ? f : f.toLowerCase()),
    }),
    errors: diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length,
    files,
    reused,
  });

  // As tsc's command line sets them: -p, --noEmit, --pretty false, --incremental, --tsBuildInfoFile.
  const extend: TS.CompilerOptions = {
    project: r.configFile,
    noEmit: true,
    pretty: false,
    incremental: true,
    tsBuildInfoFile: r.tsBuildInfoFile,
  };
  const unrecoverable: TS.Diagnostic[] = [];
  const config = ts.getParsedCommandLineOfConfigFile(r.configFile, extend, {
    ...sys,
    onUnRecoverableConfigFileDiagnostic: (d) => unrecoverable.push(d),
  });
  // tsc reports it and stops: an unreadable tsconfig.
  if (!config) return format(unrecoverable, 0, 0);
  // A rendered property imports fast-check: a workspace without it type-checks it against Ticket Runner's copy.
  config.options = withOwnFastCheckTypes(config.options, dirname(r.configFile), __dirname);

  const optionsKey = keyOf(config.options);
  let project = projects.get(r.configFile);
  if (!project || project.optionsKey !== optionsKey) {
    project = { optionsKey, builder: undefined, files: new Map() };
    projects.set(r.configFile, project);
  }
  const kept = project.files;
  const used = new Map<string, Parsed>();
  let reused = 0;
  const host = ts.createIncrementalCompilerHost(config.options, sys);
  if ('JSDocParsingMode' in ts) host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, settings, onError, fresh) => {
    const key = `${fileName}\0${JSON.stringify(settings)}`;
    const text = host.readFile(fileName);
    const old = kept.get(key);
    if (text !== undefined && old && old.text === text && !fresh) {
      reused++;
      used.set(key, old);
      return old.file;
    }
    const file = parse(fileName, settings, onError, fresh);
    if (file && text !== undefined && file.text === text) used.set(key, { text, file });
    return file;
  };

  const configDiagnostics = ts.getConfigFileParsingDiagnostics(config);
  // A new program each time, so that module resolution sees the files as they are now; the
  // builder compares each file's version (a hash of its text) with the last check's.
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    host,
    configFileParsingDiagnostics: configDiagnostics,
  });
  const builder = ts.createEmitAndSemanticDiagnosticsBuilderProgram(program, host, project.builder, configDiagnostics);

  // tsc's emitFilesAndReportErrors, in its order: each kind only when the ones before found nothing.
  const all: TS.Diagnostic[] = [...builder.getConfigFileParsingDiagnostics()];
  const before = all.length;
  all.push(...builder.getSyntacticDiagnostics());
  if (all.length === before) {
    all.push(...builder.getOptionsDiagnostics());
    all.push(...builder.getGlobalDiagnostics());
    if (all.length === before) all.push(...builder.getSemanticDiagnostics());
    const options = config.options;
    if (all.length === before && (options.declaration || options.composite)) all.push(...builder.getDeclarationDiagnostics());
  }
  project.builder = builder;
  project.files = used;
  return format(ts.sortAndDeduplicateDiagnostics(all), program.getSourceFiles().length, reused);
}

/** A line of stdin as a request (see requestFields), or the error that answers it. */
function asRequest(line: string): TscRequest | Extract<TscAnswer, { error: string }> {
  const o = requestFields(line);
  if (
    typeof o.id === 'number' &&
    typeof o.typescript === 'string' &&
    typeof o.configFile === 'string' &&
    typeof o.tsBuildInfoFile === 'string'
  ) {
    return { id: o.id, typescript: o.typescript, configFile: o.configFile, tsBuildInfoFile: o.tsBuildInfoFile };
  }
  return {
    id: typeof o.id === 'number' ? o.id : 0,
    error: `the type-check worker got something that is not a request: ${line.slice(0, 200)}`,
  };
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = asRequest(line);
  let reply: TscAnswer;
  try {
    reply = 'error' in request ? request : check(request);
  } catch (err) {
    // The state may be half made: the next check starts afresh.
    projects.clear();
    reply = { id: request.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  answer(`${JSON.stringify(reply)}\n`);
});
process.stdin.on('end', () => process.exit(0));
