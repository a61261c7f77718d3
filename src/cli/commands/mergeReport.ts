import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { batchExitCode, batchJunit, formatBatchSummary } from '../../core/run/views/batchReport';
import { mergeReport } from '../batch/mergeReport';
import { defineCommand } from '../command';
import { EXIT, exitForStatus } from '../exitCodes';

export const mergeReportCommand = defineCommand({
  name: 'merge-report',
  synopsis: 'merge-report <dirs...>',
  summary: 'one batch report and JUnit file from runs that ran anywhere',
  help: `Usage: ticket-runner merge-report <dirs...> [--out DIR] [--json]

Reads every run log under the folders (run folders, .ticket-runner/runs/<id>, or folders of
them, such as a CI matrix's downloaded artifacts) and writes one batch-report.json and one
batch-junit.xml to --out (default: the current folder), as \`batch\` would for those runs.
Exits as \`batch\` does for those outcomes.`,
  options: { out: { type: 'string' } },
  async run({ flags, positionals, io }) {
    const report = mergeReport(positionals, exitForStatus);
    const out = path.resolve(flags.out ?? process.cwd());
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'batch-report.json'), JSON.stringify(report, null, 2) + '\n');
    writeFileSync(path.join(out, 'batch-junit.xml'), batchJunit(report));
    io.out(
      flags.json
        ? JSON.stringify(report, null, 2)
        : `${formatBatchSummary(report)}\nReport: ${path.join(out, 'batch-report.json')}\nJUnit: ${path.join(out, 'batch-junit.xml')}`,
    );
    return batchExitCode(report, EXIT);
  },
});
