/**
 * Captures the routing corpus's fixture cases: runs every scripted ticket of the fixture
 * projects through the real pipeline (the scenario tests' wiring: real checks, the scripted
 * model) and freezes each routing decision as a case: the Debugger's input as the product
 * built it, the facts the guards read, and the Debugger's recorded answer. The gold route of
 * a captured case is the route its fixture ticket was written for (the route scenario tests
 * assert it). Paths of the temporary workspace and of this package become `/workspace` and
 * `/ticket-runner`, so a case reads the same on every machine.
 *
 *   npx tsx scripts/captureRoutingCorpus.ts [ticket-id ...]
 *
 * Writes test/routing-corpus/cases/<fixture>-<ticket>-a<attempt>.json (and shared blobs). The
 * hand-made variants are written by scripts/routingVariants.ts from these captures.
 */
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ModelPort } from '../src/core/ports/model';
import type { RoutingObservation } from '../src/core/stages/common/context';
import { FAILURE_KINDS, type FailureKind } from '../src/core/schema/diagnosis';
import { RoutingCase } from '../src/core/schema/routingCase';
import { writeCase } from '../src/node/routingCorpus/corpusFiles';
import { runTicket } from '../test/support/scenario';
import { copyFixture, fixturePath, REPO_ROOT, type FixtureName } from '../test/support/tempWorkspace';

const FIXTURES: FixtureName[] = ['blog-api', 'shop-esm', 'inventory-jest', 'mono-ws'];
const CORPUS = path.join(REPO_ROOT, 'test', 'routing-corpus');

/** Every string of a value with the machine's paths replaced by stable placeholders. */
function portable<T>(value: T, root: string): T {
  // The runner's own scratch folders (a report file's folder) differ on every run.
  const scratch = new RegExp(`${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[A-Za-z0-9._-]+`, 'g');
  const swap = (s: string) => s.split(root).join('/workspace').split(REPO_ROOT).join('/ticket-runner').replace(scratch, '<tmp>');
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? swap(v) : v))) as T;
}

async function captureTicket(fixture: FixtureName, id: string): Promise<number> {
  const ws = copyFixture(fixture);
  const observed: { o: RoutingObservation; answers: unknown[] }[] = [];
  let answers: unknown[] = [];
  try {
    await runTicket(ws.root, id, {
      attempts: 4,
      patch: (deps) => {
        const inner: ModelPort = deps.model;
        // The Debugger's answers as the model gave them, before the stage validated them.
        deps.model = {
          ...inner,
          info: inner.info,
          complete: async (request, signal) => {
            const response = await inner.complete(request, signal);
            if (request.role === 'debugger')
              answers.push(response.structured !== undefined ? { structured: response.structured } : { text: response.text });
            return response;
          },
        };
        deps.observeRouting = (o) => {
          observed.push({ o, answers });
          answers = [];
        };
      },
    });
  } finally {
    ws.dispose();
  }
  let written = 0;
  for (const { o, answers: recorded } of observed) {
    const gold = o.decision.route;
    if (!(FAILURE_KINDS as readonly string[]).includes(gold)) {
      console.log(`  ${id} attempt ${o.attempt}: routed ${gold}, not an owner route: skipped`);
      continue;
    }
    const c = RoutingCase.parse(
      portable(
        {
          id: `${fixture}-${id}-a${o.attempt}`,
          origin: `captured: ${fixture} ${id}, attempt ${o.attempt}`,
          why: o.diagnosis ? `${o.diagnosis.kind}: ${o.diagnosis.claim}` : 'no usable diagnosis',
          gold: {
            route: gold as FailureKind,
            ...(o.decision.route !== 'code' && o.decision.guard.fact ? { fact: o.decision.guard.fact.kind } : {}),
          },
          inputs: o.inputs,
          facts: o.facts,
          answers: recorded,
        },
        ws.root,
      ),
    );
    writeCase(CORPUS, c);
    console.log(`  ${c.id}: gold ${c.gold.route}${c.gold.fact ? ` (${c.gold.fact})` : ''}`);
    written++;
  }
  return written;
}

async function main(): Promise<void> {
  const only = new Set(process.argv.slice(2));
  let total = 0;
  for (const fixture of FIXTURES) {
    const ids = readdirSync(path.join(fixturePath(fixture), '.tickets'))
      .filter((f) => f.endsWith('.script.json'))
      .map((f) => f.replace(/\.script\.json$/, ''))
      .filter((id) => !only.size || only.has(id));
    for (const id of ids) {
      console.log(`${fixture} ${id}`);
      total += await captureTicket(fixture, id);
    }
  }
  console.log(`${total} case(s) written to ${path.relative(REPO_ROOT, CORPUS)}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
