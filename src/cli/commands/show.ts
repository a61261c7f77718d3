import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { displayStatus } from '../../core/run/liveness';
import { decodeLog } from '../../core/run/logCodec';
import { reduceRun, type RunState } from '../../core/run/reducer';
import { formatPromptRecords } from '../../core/run/views/prompts';
import { formatRunReport } from '../../core/run/views/report';
import { formatRunWaits, runWaits } from '../../core/run/views/waits';
import type { RunEvent } from '../../core/schema/events';
import { FileRunStore } from '../../node/store/fileRunStore';
import { ownerProbe } from '../../node/store/workspaceLock';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { workspaceOf } from '../workspaceOf';

/** The workspace of a log given by path: `<ws>/.ticket-runner/runs/<id>/events.jsonl`. */
function workspaceOfLog(p: string): string {
  const runDir = existsSync(p) && statSync(p).isDirectory() ? p : path.dirname(p);
  return path.resolve(runDir, '..', '..', '..');
}

/** The path form of `show`: a log file or a run folder, read without a workspace. */
function loadFromPath(p: string): { state: RunState; events: RunEvent[] } | null {
  const file = existsSync(p) && statSync(p).isDirectory() ? path.join(p, 'events.jsonl') : p;
  if (!existsSync(file) || !file.endsWith('.jsonl')) return null;
  const log = decodeLog(readFileSync(file, 'utf8'), file);
  const runId = log.events[0]?.runId ?? path.basename(path.dirname(file));
  return { state: reduceRun(runId, log.events), events: log.events };
}

export const showCommand = defineCommand({
  name: 'show',
  synopsis: 'show <runId|path>',
  summary: 'a readable report of a run, from its log alone',
  help: `Usage: ticket-runner show <runId|path-to-events.jsonl> [--workspace DIR] [--json] [--prompts | --waits]

Prints what happened in a run, built from its event log alone: attempts, checks,
diagnoses with their evidence, routes and the guard's verdicts, corrections, outcome.

  --prompts   every model call's whole prompt and raw answer instead (secrets scrubbed)
  --waits     where the run's time went instead: summed by what it waited on (the model,
              the tests, the type-check...), and its longest single waits`,
  options: { prompts: { type: 'boolean' }, waits: { type: 'boolean' } },
  async run({ flags, positionals, io }) {
    const id = positionals[0];
    if (!id) throw new UserInputError('show needs a run id or the path of an events.jsonl');
    const fromPath = loadFromPath(path.resolve(id));
    let state = fromPath?.state;
    let events = fromPath?.events ?? [];
    // Whether its process lives is known from the lock of the workspace the log is in.
    let ws: string;
    if (state) ws = workspaceOfLog(path.resolve(id));
    else {
      ws = workspaceOf(flags);
      const loaded = await new FileRunStore(ws).load(id);
      if (loaded.torn)
        io.err(
          `warning: the last line (${loaded.torn.line}) of the log is torn, probably by a crash mid-write; it was skipped: ${loaded.torn.error}`,
        );
      state = reduceRun(id, loaded.events);
      events = loaded.events;
    }
    if (flags.waits) {
      const waits = runWaits(events);
      io.out(flags.json ? JSON.stringify(waits, null, 2) : formatRunWaits(state.runId, waits));
      return EXIT.passed;
    }
    if (flags.prompts) {
      const store = new FileRunStore(ws);
      const shown = state;
      io.out(await formatPromptRecords(shown, (hash) => store.getBlob(shown.runId, hash)));
      return EXIT.passed;
    }
    const status = displayStatus(state, ownerProbe(ws));
    io.out(flags.json ? JSON.stringify({ ...state, status }, null, 2) : formatRunReport(state, status));
    return EXIT.passed;
  },
});
