/**
 * One bench section in its own process (bench/isolate.ts runs it under a time limit):
 * `section.ts <name> <args as JSON> <output file>`. Writes the section's value, or why it could
 * not run, to the output file.
 */
import { writeFileSync } from 'node:fs';
import { measureActivation } from './activation';
import { measureBaselineCost } from './baselineCost';
import { measureCandidateCopy } from './candidateCopy';
import { measureEditTokens } from './editTokens';
import { measureEventLoopStall } from './eventLoopStall';
import { measureBatchWallTime } from './batchWallTime';
import { measureDemoWallTime } from './demoWallTime';
import { measureLintWorker } from './lintWorker';
import { measureSandboxOverhead } from './sandboxOverhead';
import { measureStreamLinearity } from './streamLinearity';
import { measureTicketServer } from './ticketServer';
import { measureCheckLatency } from './checkLatency';
import { measureEditorSettle } from './editorSettle';
import { measureExtension } from './extensionSize';
import type { GeneratedRepo } from './genRepo';
import type { SectionOutcome } from './isolate';
import { measurePipelineOverhead } from './pipelineOverhead';
import { measureDebuggerPrompt } from './promptSize';
import { typeCheckRounds } from './typeCheckGate';
import { measureWebviewRender } from './webviewRender';
import { measureFirstEvent } from './firstEvent';
import { measureTimeToVerdict } from './timeToVerdict';
import { measureGeneralizeCost } from './generalizeCost';
import { measureLargeProject, type LargeSize } from './largeProject';

export interface SectionArgs {
  repoRoot: string;
  repo?: GeneratedRepo;
  /** The 100k repo's twin whose node_modules holds TypeScript 7. */
  nativeRoot?: string | null;
  runs?: number;
  edits?: number;
  attempts?: number;
  /** Which parts of the large-project section to run: its sizes, and the batch. */
  large?: { sizes: LargeSize[]; batch: boolean };
}

/** Each section's result, or a promise of it (the runner awaits either). */
export const SECTIONS: Record<string, (a: SectionArgs) => unknown> = {
  checkLatency: (a) => measureCheckLatency(a.repo!, { edits: a.edits!, tscRuns: a.runs! }),
  debuggerPrompt: (a) => measureDebuggerPrompt(a.repo!.root),
  /** Check latency whose full checks are the type-check gate's rounds, own and native compiler. */
  compilers: async (a) => {
    const rounds = typeCheckRounds(a.repo!.root, a.nativeRoot ?? null);
    const checkLatency = await measureCheckLatency(a.repo!, { edits: a.edits!, tscRuns: a.runs!, fullCheck: rounds.full });
    return { checkLatency, typeCheckGate: rounds.figures(a.repo!.lines) };
  },
  pipelineOverhead: (a) => measurePipelineOverhead(a.runs!),
  baselineCost: (a) => measureBaselineCost(a.repo!),
  sandboxOverhead: (a) => measureSandboxOverhead(a.runs!),
  lintWorker: (a) => measureLintWorker(a.runs!),
  streamLinearity: (a) => measureStreamLinearity(a.runs!),
  webviewRender: (a) => measureWebviewRender(a.repoRoot, a.attempts!, a.runs!),
  firstEvent: (a) => measureFirstEvent(a.repoRoot, a.runs!),
  extension: (a) => measureExtension(a.repoRoot),
  activation: (a) => measureActivation(a.repoRoot, a.runs!),
  editorSettle: (a) => measureEditorSettle(a.repoRoot, a.edits!),
  batchWallTime: () => measureBatchWallTime(),
  demoWallTime: () => measureDemoWallTime(),
  timeToVerdict: () => measureTimeToVerdict(['BLOG-10', 'BLOG-1']),
  generalizeCost: (a) => measureGeneralizeCost(a.runs!),
  largeProject: (a) => measureLargeProject(a.large!.sizes, a.large!.batch),
  candidateCopy: (a) => measureCandidateCopy(a.repo!, a.runs!),
  ticketServer: (a) => measureTicketServer(a.edits!),
  editTokens: () => measureEditTokens(),
  eventLoopStall: () => measureEventLoopStall(),
};

async function main(): Promise<void> {
  const [name, args, out] = process.argv.slice(2) as [string, string, string];
  let outcome: SectionOutcome;
  try {
    const work = SECTIONS[name];
    if (!work) throw new Error(`no bench section named ${name}`);
    outcome = { ok: true, value: await work(JSON.parse(args) as SectionArgs) };
  } catch (err) {
    outcome = { ok: false, error: err instanceof Error ? err.message : String(err), detail: err instanceof Error ? err.stack : undefined };
  }
  writeFileSync(out, JSON.stringify(outcome));
  // Done: whatever a section left running (a server, a watcher) must not keep the process.
  process.exit(0);
}

void main();
