import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { OpEdit, OpResult, OpScope } from '../../src/core/ports/ops';
import type { TicketOp } from '../../src/core/schema/ticket';
import { OpsLanguage } from '../../src/node/ops/language';
import { NodeOps } from '../../src/node/ops/nodeOps';
import { copyFixture, FIXTURE, REPO_ROOT } from './tempWorkspace';

/** Every file under `dirs` of `root`, workspace-relative. */
function filesUnder(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(path.join(root, dir))) return;
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = `${dir}/${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  for (const dir of dirs) walk(dir);
  return out;
}

/** The project's own TypeScript files (not the rendered tests under test/ticket/), workspace-relative and sorted. */
export function sourceFiles(root: string): string[] {
  return filesUnder(root, ['src', 'test'])
    .filter((f) => f.endsWith('.ts') && !f.startsWith('test/ticket/'))
    .sort((a, b) => a.localeCompare(b));
}

/** The blog-api fixture, copied, with a NodeOps over real Tree-sitter and the real language service. */
export class OpsWorkspace {
  readonly ws = copyFixture();
  readonly ops = new NodeOps({
    root: this.ws.root,
    wasmDir: path.join(REPO_ROOT, 'node_modules', 'tree-sitter-typescript'),
    runtimeWasmDir: path.join(REPO_ROOT, 'node_modules', 'web-tree-sitter'),
  });

  get root(): string {
    return this.ws.root;
  }

  read(rel: string): string {
    return readFileSync(path.join(this.root, rel), 'utf8');
  }

  write(rel: string, text: string): void {
    mkdirSync(path.dirname(path.join(this.root, rel)), { recursive: true });
    writeFileSync(path.join(this.root, rel), text);
  }

  sourceFiles(): string[] {
    return sourceFiles(this.root);
  }

  /**
   * Puts src/ and test/ back as the fixture has them. The suite shares one copy, and so one
   * language service, across its tests: each op must catch up with the disk as it finds it.
   */
  reset(): void {
    for (const rel of filesUnder(this.root, ['src', 'test'])) {
      const original = path.join(FIXTURE, rel);
      if (!existsSync(original)) rmSync(path.join(this.root, rel));
      else if (readFileSync(original, 'utf8') !== this.read(rel)) this.write(rel, readFileSync(original, 'utf8'));
    }
  }

  /** Applies an op and writes its edits, as the pipeline does. */
  async apply(op: TicketOp, write: string[], tests: string[] = []): Promise<OpResult> {
    const scope: OpScope = { write, read: [], tests };
    const result = await this.ops.apply(op, scope, new AbortController().signal);
    if (result.ok) for (const e of result.edits) this.write(e.path, e.after);
    return result;
  }

  /** The TypeScript errors of the whole project, from a fresh language service. */
  errors(): string[] {
    const lang = new OpsLanguage(this.root);
    try {
      const files = lang.host.getScriptFileNames();
      return lang.errors(files).map((e) => `${e.file}:${e.line} TS${e.code} ${e.message}`);
    } finally {
      lang.dispose();
    }
  }

  dispose(): void {
    this.ops.dispose();
    this.ws.dispose();
  }
}

export function edits(result: OpResult): OpEdit[] {
  assert.ok(result.ok, result.ok ? '' : `${result.reason} (${result.suggestion})`);
  return result.edits;
}

export function failure(result: OpResult): Extract<OpResult, { ok: false }> {
  assert.ok(!result.ok, 'the op should have failed');
  return result;
}
