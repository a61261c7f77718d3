import { UserInputError } from '../errors';
import type { PipelineDeps, RunContext } from '../stages/common/context';
import { RunStop } from '../recovery/runStop';
import { buildManifest, manifestHash } from '../stages/manifest/manifestBuilder';
import { materialize } from '../stages/materializer';
import { guardOracle } from '../stages/checks/oracle';
import { stopIfToolsChanged } from '../stages/checks/judgingTools';
import { Oracle } from '../stages/common/oraclePins';
import { parseTicket } from '../ticket/ticketLoader';
import { placeholderPaths, TEMPLATE_MARK } from '../ticket/ticketTemplate';

/** The ticket, its manifest, and the oracle that pins the ticket's bytes from here on. */
export type LoadedTicket = Awaited<ReturnType<typeof loadTicket>>;

export async function loadTicket(deps: PipelineDeps, ticketPath: string) {
  const text = await deps.workspace.readFile(ticketPath);
  if (text === null)
    throw new UserInputError(`no ticket at ${ticketPath}: give a path relative to the workspace, such as .tickets/BLOG-1.ticket.json`);
  const ticket = parseTicket(ticketPath, text);
  const unwritten = placeholderPaths(ticket);
  if (unwritten.length) {
    const what = `${ticketPath} still holds the new ticket's placeholders (${TEMPLATE_MARK}) at ${unwritten.join(', ')}: write them first`;
    throw new UserInputError(`${what} (ticket-runner validate lists them)`, `${what} (the Problems panel lists them)`);
  }
  const manifest = await buildManifest({ ticket, ticketPath, workspace: deps.workspace, diagnostics: deps.diagnostics });
  const oracle = new Oracle(deps.hash);
  oracle.pin(ticketPath, text);
  return { ticket, manifest, oracle };
}

export async function emitManifest(ctx: RunContext): Promise<void> {
  await ctx.log.emit({ type: 'manifest.built', manifest: ctx.manifest, hash: manifestHash(ctx.manifest, ctx.deps.hash) });
}

/** Renders the test plan into the workspace: the only writer of test files is this function. */
export async function materializeTests(ctx: RunContext): Promise<void> {
  const { manifest, log, deps, oracle } = ctx;
  const rendered = materialize(manifest.testPlan, manifest.runner.framework, {
    language: manifest.testLanguage,
    moduleKind: manifest.moduleKind,
  });
  const written = [];
  const files = [];
  for (const f of rendered) {
    const before = await deps.workspace.readFile(f.path);
    const after = await log.putBlob(f.content);
    if (before !== f.content) {
      await deps.workspace.writeFile(f.path, f.content);
      written.push({ path: f.path, before: before === null ? null : await log.putBlob(before), after });
    }
    files.push({ path: f.path, hash: after });
    oracle?.pin(f.path, f.content);
  }
  if (written.length) await log.emit({ type: 'files.written', attempt: 0, by: 'materializer', files: written });
  await log.emit({ type: 'tests.materialized', framework: manifest.runner.framework, files });
}

/**
 * The last word before "passed": the oracle still has the bytes the run wrote and read. A
 * change here (a process the code left behind, a gate's tool) fails the run: it cannot pass
 * on a judge that moved.
 */
export async function confirmVerdict<T extends { attempts: number }>(ctx: RunContext, done: T): Promise<T> {
  await stopIfToolsChanged(ctx);
  const tampered = await guardOracle(ctx, done.attempts, 'beforeVerdict');
  if (tampered.length) throw new RunStop({ kind: 'oracleTampered', files: tampered.map((t) => t.path) }, 'failed');
  return done;
}
