import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { scriptPathFor } from '../../node/models/scripted/loadScript';
import { isInside } from '../../node/workspacePaths';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { loadRun } from '../openRun';
import { recordTarget, writeRecord } from '../recordFile';
import { workspaceOf } from '../workspaceOf';

export const recordCommand = defineCommand({
  name: 'record',
  synopsis: 'record <runId>',
  summary: "a run's model answers as a script for --model scripted",
  help: `Usage: ticket-runner record <runId> [--out FILE] [--force] [--workspace DIR]

Writes every model answer of a run, by role and in call order, as a script the scripted model
replays (a test and demo tool): a run made with a real model becomes a fixture that needs no key.
The script goes beside the ticket (.tickets/<ID>.script.json) unless --out names another file;
an existing file is kept unless --force.`,
  options: { out: { type: 'string' }, force: { type: 'boolean' } },
  misplacedHint: { record: ' (record writes to --out)' },
  async run({ flags, positionals, io }) {
    const runId = positionals[0];
    if (!runId) throw new UserInputError('record needs a run id (see ticket-runner list)');
    const ws = workspaceOf(flags);
    const state = await loadRun(ws, runId);
    const out = path.resolve(ws, flags.out ?? scriptPathFor(state.ticketPath));
    if (!isInside(ws, out)) throw new UserInputError(`--out ${flags.out} is outside the workspace: write the script inside it`);
    io.out(await writeRecord(ws, state, recordTarget(ws, path.relative(ws, out), flags.force === true, '--out'), flags.force === true));
    return EXIT.passed;
  },
});
