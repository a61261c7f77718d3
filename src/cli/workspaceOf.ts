import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../core/errors';

/** The workspace `--workspace` names (default: the current folder); it must be a folder. */
export function workspaceOf(flags: { workspace?: string }): string {
  const ws = path.resolve(flags.workspace ?? process.cwd());
  if (!existsSync(ws) || !statSync(ws).isDirectory()) throw new UserInputError(`--workspace ${ws} is not a folder`);
  return ws;
}
