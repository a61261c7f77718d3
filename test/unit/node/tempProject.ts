import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The repository: its node_modules stand in for the extension's own folder. */
export const repoRoot = resolve(__dirname, '../../..');

/** A small project in the system temp folder, written from a map of relative path to content. */
export class TempProject {
  readonly root: string;

  constructor(files: Record<string, string>) {
    this.root = mkdtempSync(join(tmpdir(), 'ticket-runner-checks-'));
    for (const [path, content] of Object.entries(files)) this.write(path, content);
  }

  path(relative: string): string {
    return join(this.root, relative);
  }

  write(relative: string, content: string): void {
    mkdirSync(dirname(this.path(relative)), { recursive: true });
    writeFileSync(this.path(relative), content);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

export function neverAborted(): AbortSignal {
  return new AbortController().signal;
}
