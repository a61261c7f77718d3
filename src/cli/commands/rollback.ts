import { UserInputError } from '../../core/errors';
import { rollbackRun } from '../../core';
import { defineCommand } from '../command';
import { EXIT } from '../exitCodes';
import { openRun } from '../openRun';
import { workspaceOf } from '../workspaceOf';

export const rollbackCommand = defineCommand({
  name: 'rollback',
  synopsis: 'rollback <runId>',
  summary: 'restore every file the run wrote',
  help: `Usage: ticket-runner rollback <runId> [--force] [--workspace DIR]

Puts back every file the run wrote: its content and mode before the run, from the run's
own store; deletes the files and folders it created. If a file changed since the run last
wrote it (your edit), rollback changes nothing, names the files and exits 3.

Options:
  --force    overwrite those changes too`,
  options: { force: { type: 'boolean' } },
  async run({ flags, positionals, argv, io }) {
    const runId = positionals[0];
    if (!runId) throw new UserInputError('rollback needs a run id (see ticket-runner list)');
    const ws = workspaceOf(flags);
    const result = await openRun({ argv, io }, { workspaceRoot: ws, model: 'none', env: process.env }, (deps) =>
      rollbackRun(deps, runId, { force: flags.force }),
    );
    const done = result.rolledBack;
    if (flags.json)
      io.out(
        JSON.stringify({
          runId,
          rolledBack: result.state.rolledBack,
          files: done.files,
          folders: done.folders ?? [],
          forced: done.forced ?? [],
        }),
      );
    else {
      io.out(`Run ${runId} rolled back: ${done.files.length} file(s) put back as they were before the run.`);
      for (const f of done.files) io.out(`  ${f.restored === 'deleted' ? 'deleted' : 'restored'} ${f.path}`);
      for (const f of done.folders ?? []) io.out(`  removed folder ${f}`);
      if (done.forced?.length) io.out(`  overwritten (--force): ${done.forced.join(', ')}`);
    }
    return result.state.rolledBack ? EXIT.passed : EXIT.error;
  },
});
