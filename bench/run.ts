/**
 * `npm run bench`: check latency, Debugger prompt size, pipeline overhead and the extension's
 * figures, each as a ratio measured in this same run (these machines are noisy). Prints a
 * Markdown table and writes bench-results/bench.json. Not part of `npm test`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import ts from 'typescript';
import { measureActivation, type Activation } from './activation';
import { measureCheckLatency, type CheckLatency } from './checkLatency';
import { measureExtension, type ExtensionFigures } from './extensionSize';
import { generateRepo } from './genRepo';
import { round } from './measure';
import { measurePipelineOverhead, type PipelineOverhead } from './pipelineOverhead';
import { CHARS_PER_TOKEN, measureDebuggerPrompt, type DebuggerPromptSize } from './promptSize';
import { count, kib, markdownTable, ms, type Row } from './report';
import { measureWebviewRender, type WebviewRender } from './webviewRender';

const REPO = path.resolve(__dirname, '..');
/** Folder names of equal length: the test output quotes absolute paths, and the prompts must differ only by the repo. */
const SIZES = [
  { label: '10k', dir: 'r010k', modules: 100 },
  { label: '100k', dir: 'r100k', modules: 1000 },
] as const;
const EDITS = 7;
const TSC_RUNS = 3;
const OVERHEAD_RUNS = 3;
const WEBVIEW_ATTEMPTS = 500;
const WEBVIEW_REPEATS = 5;
const ACTIVATION_RUNS = 3;

const say = (s: string) => process.stderr.write(`[bench] ${s}\n`);
const errors: { section: string; error: string }[] = [];

/** A section that fails is recorded and the others still run: one broken figure must not hide the rest. */
async function section<T>(name: string, work: () => Promise<T> | T): Promise<T | undefined> {
  const t = performance.now();
  say(`${name}…`);
  try {
    const value = await work();
    say(`${name}: ${Math.round((performance.now() - t) / 1000)} s`);
    return value;
  } catch (err) {
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    errors.push({ section: name, error });
    say(`${name} FAILED: ${error}`);
    return undefined;
  }
}

/** Two prompts are the same but for timings and the repo folder: then nothing in them grew with the repo. */
const masked = (prompt: string) => prompt.replace(/r\d{3}k/g, 'REPO').replace(/\d+(\.\d+)?/g, '#');

async function main(): Promise<void> {
  const started = performance.now();
  const machine = {
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: round(os.totalmem() / 2 ** 30),
    node: process.version,
    typescript: ts.version,
    loadAverageAtStart: os.loadavg().map((n) => round(n, 2)),
  };
  const base = mkdtempSync(path.join(os.tmpdir(), 'tr-bench-'));
  const check: Record<string, CheckLatency | undefined> = {};
  const prompt: Record<string, DebuggerPromptSize | undefined> = {};
  let overhead: PipelineOverhead | undefined;
  let webview: WebviewRender | undefined;
  let extension: ExtensionFigures | undefined;
  let activation: Activation | undefined;
  try {
    const repos = SIZES.map((s) => ({ ...s, repo: generateRepo(path.join(base, s.dir), s.modules, path.join(REPO, 'node_modules')) }));
    for (const r of repos) say(`generated ${r.label}: ${count(r.repo.lines)} lines in ${r.repo.files} files`);
    for (const r of repos) check[r.label] = await section(`check latency ${r.label}`, () => measureCheckLatency(r.repo, { edits: EDITS, tscRuns: TSC_RUNS }));
    for (const r of repos) prompt[r.label] = await section(`Debugger prompt ${r.label}`, () => measureDebuggerPrompt(r.repo.root));
    overhead = await section('pipeline overhead', () => measurePipelineOverhead(OVERHEAD_RUNS));
    webview = await section('webview render', () => measureWebviewRender(REPO, WEBVIEW_ATTEMPTS, WEBVIEW_REPEATS));
    extension = await section('extension size', () => measureExtension(REPO));
    activation = await section('activation', () => measureActivation(REPO, ACTIVATION_RUNS));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }

  const rows: Row[] = [];
  for (const s of SIZES) {
    const c = check[s.label];
    if (!c) continue;
    const files = c.edits.map((e) => e.checkedFiles);
    rows.push({
      figure: `Check latency, ${count(c.lines)} lines`,
      measured: `incremental ${ms(c.incrementalMedianMs)} (median of ${c.edits.length} one-file edits, ${Math.min(...files)}–${Math.max(...files)} files re-checked) vs \`tsc --noEmit\` ${ms(c.tscMedianMs)} (median of ${c.tscRunsMs.length})`,
      ratio: c.ratio,
      target: s.label === '100k' ? '≤ 0.05' : undefined,
      met: s.label === '100k' ? c.ratio <= 0.05 : undefined,
    });
  }
  const [small, large] = [prompt['10k'], prompt['100k']];
  const promptRatio = small && large ? large.promptChars / small.promptChars : undefined;
  const promptsMatch = small && large ? masked(small.prompt) === masked(large.prompt) : undefined;
  for (const s of SIZES) {
    const p = prompt[s.label];
    if (!p) continue;
    rows.push({
      figure: `Debugger prompt, GEN-1 in the ${s.label}-line repo`,
      measured: `${count(p.promptChars)} chars ≈ ${count(p.promptTokensEstimate)} tokens (whole request ${count(p.requestChars)} chars ≈ ${count(p.requestTokensEstimate)} tokens)`,
      ratio: s.label === '100k' ? promptRatio : undefined,
      target: s.label === '100k' ? '≤ 1.1 (100k / 10k)' : undefined,
      met: s.label === '100k' && promptRatio !== undefined ? promptRatio <= 1.1 : undefined,
    });
  }
  if (overhead) {
    const m = overhead.median;
    rows.push({
      figure: 'Pipeline overhead, BLOG-1 (scripted model)',
      measured: `startRun ${ms(m.totalMs)} vs its own tests ${ms(m.checksMs.tests)} + diagnostics ${ms(m.checksMs.diagnostics)} + parse ${ms(m.checksMs.parse)} + lint ${ms(m.checksMs.lint)} (${m.lintStatus.split(':')[0]}), median of ${overhead.samples.length} runs`,
      ratio: m.ratio,
      target: '≤ 1.3',
      met: m.ratio <= 1.3,
    });
  }
  if (webview) {
    rows.push({
      figure: `Webview render, ${webview.attempts} attempts`,
      measured: `DOM built ${ms(webview.domMedianMs)}, next frame ${ms(webview.frameMedianMs)} (median of ${webview.domMs.length}; ${kib(webview.messageBytes)} run/state message)`,
    });
  }
  if (extension) {
    rows.push({ figure: extension.artifact.endsWith('.vsix') ? 'Extension .vsix' : 'Extension bundle (no .vsix)', measured: `${kib(extension.bytes)}: ${extension.note}` });
  }
  if (activation) {
    rows.push({
      figure: 'Activation time',
      measured: `${ms(activation.medianMs)} (${activation.label.toLowerCase()} of the ${extension?.artifact.endsWith('.vsix') ? 'production bundle the .vsix ships' : 'development bundle'}, median of ${activation.runsMs.length}; as VS Code reports it in code-server)`,
    });
  }

  const date = new Date().toISOString();
  const table = markdownTable(rows);
  const results = {
    date,
    machine,
    durationS: round((performance.now() - started) / 1000),
    tokens: `estimated as ceil(chars / ${CHARS_PER_TOKEN}) (Anthropic's rule of thumb; no Claude tokenizer is installed and count_tokens needs the network)`,
    ratios: {
      checkIncrementalOverFull: Object.fromEntries(SIZES.map((s) => [s.label, check[s.label]?.ratio ?? null])),
      debuggerPrompt100kOver10k: promptRatio ?? null,
      pipelineOverBlog1Checks: overhead?.median.ratio ?? null,
    },
    targets: {
      checkIncrementalOverFullAt100k: { max: 0.05, met: check['100k'] ? check['100k'].ratio <= 0.05 : null },
      debuggerPrompt100kOver10k: { max: 1.1, met: promptRatio === undefined ? null : promptRatio <= 1.1 },
      pipelineOverBlog1Checks: { max: 1.3, met: overhead ? overhead.median.ratio <= 1.3 : null },
    },
    checkLatency: check,
    debuggerPrompt: {
      ticket: 'GEN-1 (bench/promptSize.ts): one write file and its imports, byte-identical in both repos',
      sameButTimingsAndRepoFolder: promptsMatch ?? null,
      ...Object.fromEntries(SIZES.map((s) => [s.label, prompt[s.label] ? { ...prompt[s.label], prompt: undefined } : null])),
    },
    pipelineOverhead: overhead ?? null,
    webviewRender: webview ?? null,
    extension: extension ?? null,
    activation: activation ?? null,
    errors,
    table,
  };
  const out = path.join(REPO, 'bench-results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'bench.json'), JSON.stringify(results, null, 2) + '\n');
  const cpu = `${machine.cpus} × ${machine.cpuModel}`;
  process.stdout.write(`\nTicket Runner bench, ${date}\n${machine.os}, ${cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}, TypeScript ${machine.typescript}\n\n${table}\n\n`);
  process.stdout.write(`Tokens are estimates (chars / ${CHARS_PER_TOKEN}). Written to bench-results/bench.json in ${results.durationS} s.\n`);
  if (errors.length) {
    process.stdout.write(`${errors.length} section(s) failed: ${errors.map((e) => e.section).join(', ')} (see bench.json)\n`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
