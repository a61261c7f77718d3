import ts from 'typescript';
import { CancelledError } from '../../core/errors';
import type { OpResult, OpScope, OpsPort } from '../../core/ports/ops';
import type { TicketOp } from '../../core/schema/ticket';
import { addImport } from './addImport';
import { declareExports } from './declare';
import { fail, type OpInput } from './common';
import { setInterfaceField } from './interfaceField';
import { OpsLanguage } from './language';
import { renameSymbol } from './rename';
import { TreeSitterGrammars, type TreeSitterOptions } from '../parse/treeSitter';
import type { OpsSyntax } from './syntax';
import { changeTypeAnnotation } from './typeAnnotation';

export interface NodeOpsOptions extends TreeSitterOptions {
  root: string;
  /** The tsconfig.json to read, relative to the root; the default is `tsconfig.json`. */
  tsconfig?: string;
  /** The folder of TypeScript's lib.*.d.ts files, when TypeScript is bundled away from them. */
  libDir?: string;
  /** True when the op in progress was cancelled from another thread (the ops in a worker). */
  interrupted?: () => boolean;
  /** Parsed files shared with the diagnostics' service of the same thread (see WorkspaceHost's versions). */
  registry?: ts.DocumentRegistry;
}

/**
 * OpsPort over Tree-sitter and an in-process TypeScript LanguageService. The service is built
 * by warm() or the first op, so a ticket without ops costs nothing; call dispose() when done.
 */
export class NodeOps implements OpsPort {
  private language: OpsLanguage | undefined;
  private readonly syntax: OpsSyntax;

  constructor(private readonly options: NodeOpsOptions) {
    this.syntax = new TreeSitterGrammars(options);
  }

  async apply(op: TicketOp, scope: OpScope, signal: AbortSignal): Promise<OpResult> {
    if (signal.aborted) throw new CancelledError('ops cancelled');
    const lang = (this.language ??= new OpsLanguage(this.options.root, this.options));
    lang.host.signal = signal;
    try {
      const abs = lang.abs(op.file);
      if (!/\.[cm]?tsx?$/i.test(op.file))
        return fail(`${op.file} is not a TypeScript file`, 'point the op at the .ts file that declares the target');
      lang.refresh(abs);
      const text = lang.text(abs);
      // The one op that may create its file: what the ticket declares may be a new module.
      if (op.op === 'declare') return await declareExports({ op, file: lang.rel(abs), abs, text, scope, lang, syntax: this.syntax });
      if (text === undefined)
        return fail(`${op.file} does not exist`, "correct the op's file: a workspace-relative path to an existing file");
      const input: OpInput = { op, file: lang.rel(abs), abs, text, scope, lang, syntax: this.syntax };
      switch (op.op) {
        case 'renameSymbol':
          return await renameSymbol({ ...input, op });
        case 'addImport':
          return await addImport({ ...input, op });
        case 'setInterfaceField':
          return await setInterfaceField({ ...input, op });
        case 'changeTypeAnnotation':
          return await changeTypeAnnotation({ ...input, op });
      }
    } catch (err) {
      if (err instanceof ts.OperationCanceledException) throw new CancelledError('ops cancelled');
      throw err;
    } finally {
      lang.host.signal = undefined;
    }
  }

  /** The service and its program, built now (parsed and bound); the first op then only checks. */
  async warm(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const lang = (this.language ??= new OpsLanguage(this.options.root, this.options));
    lang.host.signal = signal;
    try {
      lang.service.getProgram()?.getTypeChecker();
    } catch (err) {
      if (err instanceof ts.OperationCanceledException) return;
      throw err;
    } finally {
      lang.host.signal = undefined;
    }
  }

  dispose(): void {
    this.language?.dispose();
    this.language = undefined;
  }
}
