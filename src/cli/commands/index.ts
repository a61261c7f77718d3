import type { CliCommand } from '../command';
import { batchCommand } from './batch';
import { draftCommand } from './draft';
import { evalRoutingCommand } from './evalRouting';
import { listCommand } from './list';
import { planCommand } from './plan';
import { lspCommand } from './lsp';
import { mergeReportCommand } from './mergeReport';
import { recordCommand } from './record';
import { renderCommand } from './render';
import { resolveCommand } from './resolve';
import { resumeCommand } from './resume';
import { rollbackCommand } from './rollback';
import { runCommand } from './run';
import { showCommand } from './show';
import { statsCommand } from './stats';
import { ticketsCommand } from './tickets';
import { validateCommand } from './validate';

/** Every `ticket-runner` command, in the order the main help lists them. */
export const COMMANDS: readonly CliCommand[] = [
  runCommand,
  showCommand,
  listCommand,
  resolveCommand,
  resumeCommand,
  rollbackCommand,
  recordCommand,
  statsCommand,
  validateCommand,
  renderCommand,
  lspCommand,
  batchCommand,
  mergeReportCommand,
  ticketsCommand,
  evalRoutingCommand,
  draftCommand,
  planCommand,
];
