import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { UserInputError } from '../../core/errors';
import type { ModelPort } from '../../core/ports/model';
import { compareReports, formatComparison, formatReport } from '../../core/eval/format';
import { summarize, type RoutingReport } from '../../core/eval/report';
import { evalCases } from '../../core/eval/runEval';
import { createAnthropicProviderFromEnv } from '../../node/models/anthropic/fromEnv';
import { scriptedCaseModel } from '../../node/routingCorpus/caseModel';
import { loadCorpus } from '../../node/routingCorpus/corpusFiles';
import { packageRoot } from '../../node/wire';
import { defineCommand, type Io } from '../command';
import { EXIT } from '../exitCodes';

const EVAL_ROUTING_HELP = `Usage: ticket-runner eval-routing [--model scripted|anthropic] [--corpus DIR] [--json] [--out FILE]
       ticket-runner eval-routing --compare A.json B.json [--json]

Measures routing: runs the Debugger stage and the router's guards over every case of the routing
corpus (frozen failed attempts, each with the route a person decided owns the fix), and prints
the confusion matrix (gold route x routed), the Debugger's accuracy, each guard's right and
wrong confirmations and vetoes (precision, recall), and the tokens and cost per case.
  --model scripted    replays each case's recorded Debugger answer (no key, no cost: CI)
  --model anthropic   asks the real model (ANTHROPIC_API_KEY; ANTHROPIC_MODEL picks the model)
  --corpus DIR        a corpus folder with cases/ and blobs/ (default: the package's test/routing-corpus)
  --out FILE          also write the JSON report to FILE, for --compare later
  --compare A B       the deltas from report A to report B (two --out files)`;

const OPTIONS = {
  model: { type: 'string' },
  corpus: { type: 'string' },
  json: { type: 'boolean' },
  out: { type: 'string' },
  compare: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function readReport(file: string): RoutingReport {
  if (!existsSync(file)) throw new UserInputError(`${file} does not exist: write a report with eval-routing --out ${file}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserInputError(`${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const r = raw as Partial<RoutingReport> | null;
  if (
    !r ||
    typeof r !== 'object' ||
    typeof r.cases !== 'number' ||
    !r.matrix ||
    !r.accuracy ||
    !r.guards ||
    !Array.isArray(r.results) ||
    !r.usage
  ) {
    throw new UserInputError(`${file} is not an eval-routing report (written by eval-routing --out)`);
  }
  return r as RoutingReport;
}

function modelChoice(
  raw: string | undefined,
): (env: NodeJS.ProcessEnv) => { label: string; modelFor: Parameters<typeof evalCases>[1]['modelFor'] } {
  const choice = raw ?? 'anthropic';
  if (choice === 'scripted') return () => ({ label: "scripted (the cases' recorded answers)", modelFor: scriptedCaseModel });
  if (choice === 'anthropic') {
    return (env) => {
      const model: ModelPort = createAnthropicProviderFromEnv(env);
      return { label: `${model.info.provider} ${model.info.model}`, modelFor: () => model };
    };
  }
  throw new UserInputError(
    `--model must be scripted or anthropic, got "${choice}" (the editor's models run from its "Evaluate Routing" command)`,
  );
}

/** `eval-routing`: the routing benchmark, or the comparison of two of its reports. */
async function evalRouting(args: readonly string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values: flags, positionals } = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  if (flags.help) {
    io.out(EVAL_ROUTING_HELP);
    return EXIT.passed;
  }
  if (flags.compare) {
    if (positionals.length !== 2) throw new UserInputError('--compare needs two report files: eval-routing --compare A.json B.json');
    const [a, b] = positionals.map((p) => readReport(path.resolve(p))) as [RoutingReport, RoutingReport];
    io.out(flags.json ? JSON.stringify(compareReports(a, b), null, 2) : formatComparison(a, b, [positionals[0]!, positionals[1]!]));
    return EXIT.passed;
  }
  if (positionals.length) throw new UserInputError(`eval-routing takes no argument "${positionals[0]}" (see eval-routing --help)`);
  const { label, modelFor } = modelChoice(flags.model)(process.env);
  const corpus = path.resolve(flags.corpus ?? path.join(packageRoot(), 'test', 'routing-corpus'));
  const cases = loadCorpus(corpus);
  const results = await evalCases(cases, {
    modelFor,
    signal,
    onCase: (r, i) => io.err(`[${i + 1}/${cases.length}] ${r.id}: gold ${r.gold}, claimed ${r.claimed ?? '(none)'}, routed ${r.routed}`),
  });
  const report = summarize(label, results);
  if (flags.out) {
    mkdirSync(path.dirname(path.resolve(flags.out)), { recursive: true });
    writeFileSync(path.resolve(flags.out), JSON.stringify(report, null, 2) + '\n');
  }
  io.out(flags.json ? JSON.stringify(report, null, 2) : formatReport(report) + (flags.out ? `\nReport: ${path.resolve(flags.out)}` : ''));
  return EXIT.passed;
}

export const evalRoutingCommand = defineCommand({
  name: 'eval-routing',
  synopsis: 'eval-routing',
  summary: 'measure routing over the routing corpus (a confusion matrix)',
  help: EVAL_ROUTING_HELP,
  options: {},
  ownParser: true,
  // Its own options (--corpus, --compare A B): the arguments after its name.
  run: ({ argv, io, signal }) => evalRouting(argv.slice(1), io, signal),
});
