/**
 * Anomaly detectors over a model answer (the recovery rungs' signals). Each detector that
 * fires adds its weight to the score; an urgent one, or a score at the threshold, triggers
 * rung 1 at once. The signals go into the `anomaly.detected` event as they are.
 */

export type AnomalyName =
  'repetitionLoop' | 'nearEmpty' | 'proseWithoutCode' | 'commentOnlyCode' | 'leakedThinking' | 'selfDoubtLoop' | 'oversized';

export interface AnomalySignal {
  name: AnomalyName;
  weight: number;
  detail: string;
}

export interface AnomalyScore {
  score: number;
  urgent: boolean;
  signals: AnomalySignal[];
}

export interface ScoreOptions {
  /** The answer should contain code (the Coder); off for prose roles. */
  expectCode: boolean;
  /** Longer than this is oversized. Default 100,000 characters. */
  maxChars?: number;
  /**
   * The answer ends a turn after tool results (the Coder's edits are made): a one-line summary
   * is the expected answer there, not a near-empty one.
   */
  afterTools?: boolean;
}

/** Weak signals alone do not trigger rung 1; two of them together do. */
export const URGENT_SCORE = 1;
export const DEFAULT_MAX_CHARS = 100_000;

interface Detector {
  weight: number;
  /** Fires rung 1 on its own: the answer is unusable whatever else it holds. */
  urgent: boolean;
  /** The detail when the detector fires, undefined when it does not. */
  detect(answer: Answer, options: ScoreOptions): string | undefined;
}

/** The answer split once, since most detectors read only its code or only its prose. */
interface Answer {
  text: string;
  /** The code the answer carries: its fenced blocks, or the whole text when it is bare code. */
  code: string;
  /** The text outside fenced blocks. */
  prose: string;
}

export const DETECTORS: Readonly<Record<AnomalyName, Detector>> = {
  repetitionLoop: { weight: 1, urgent: true, detect: ({ text }) => describeRepetition(findRepetition(text)) },
  nearEmpty: {
    weight: 1,
    urgent: true,
    detect: ({ text }, { afterTools }) => {
      const visible = countVisible(text);
      return visible < NEAR_EMPTY_CHARS && !afterTools ? `only ${visible} visible characters` : undefined;
    },
  },
  proseWithoutCode: {
    weight: 1,
    urgent: true,
    detect: ({ text, code }, { expectCode }) =>
      expectCode && code === '' && countVisible(text) >= NEAR_EMPTY_CHARS ? `${text.length} characters of prose and no code` : undefined,
  },
  commentOnlyCode: {
    weight: 0.7,
    urgent: false,
    detect: ({ code }, { expectCode }) => (expectCode ? describeCommentOnly(code) : undefined),
  },
  leakedThinking: {
    weight: 0.5,
    urgent: false,
    detect: ({ text }) => {
      const tags = text.match(THINK_TAG) ?? [];
      return tags.length > 0 ? `${tags.length} reasoning tag(s) in the answer, first ${tags[0] ?? ''}` : undefined;
    },
  },
  selfDoubtLoop: {
    weight: 0.6,
    urgent: false,
    detect: ({ prose }) => {
      const turns = prose.match(SELF_DOUBT) ?? [];
      return turns.length >= SELF_DOUBT_TURNS
        ? `${turns.length} self-corrections (${[...new Set(turns.map((t) => t.toLowerCase().replace(/[,.!:]$/, '')))].slice(0, 3).join(' / ')})`
        : undefined;
    },
  },
  oversized: {
    weight: 0.5,
    urgent: false,
    detect: ({ text }, { maxChars = DEFAULT_MAX_CHARS }) =>
      text.length > maxChars ? `${text.length} characters, over ${maxChars}` : undefined,
  },
};

export function scoreAnswer(text: string, options: ScoreOptions): AnomalyScore {
  const answer = splitAnswer(text);
  const signals: AnomalySignal[] = [];
  let urgent = false;
  for (const [name, detector] of Object.entries(DETECTORS) as [AnomalyName, Detector][]) {
    const detail = detector.detect(answer, options);
    if (detail === undefined) continue;
    signals.push({ name, weight: detector.weight, detail });
    urgent ||= detector.urgent;
  }
  const score = signals.reduce((sum, s) => sum + s.weight, 0);
  return { score, urgent: urgent || score >= URGENT_SCORE, signals };
}

// ---- Rung 1: watching a stream -------------------------------------------------------

export interface StreamWatchOptions {
  expectCode: boolean;
  /** Prose past this many characters with no code in sight stops the stream. Default 1,500. */
  proseCharLimit?: number;
  /**
   * No text by this time stops the stream. Default 30 s. Thinking streams no text while it
   * runs: give a thinking call a longer deadline.
   */
  startDeadlineMs?: number;
}

export type StreamVerdict = { stop: false } | { stop: true; reason: 'noStart' | 'proseWithoutCode' | 'repetitionLoop'; detail: string };

export const STREAM_WATCH_DEFAULTS = { proseCharLimit: 1_500, startDeadlineMs: 30_000 } as const;

/** Whether to stop an answer that reads `soFar` now: a whole-text check, as a stream's watch makes it. */
export function watchStream(soFar: string, elapsedMs: number, options: StreamWatchOptions): StreamVerdict {
  const watch = new StreamWatch(options);
  watch.push(soFar);
  return watch.verdict(elapsedMs);
}

/** A line this long is judged by its two ends only: a single huge line must not be read again per delta. */
const LINE_END_CHARS = 200;

/**
 * The watch over one streaming answer. It is told every delta and judges after each one, so
 * its cost must stay linear in the answer's size: each delta is read once (visible text, the
 * fence, completed code lines), and the loop check reads only a bounded tail. A watch that
 * re-read the whole answer per delta would take minutes on a few megabytes, and hold the event
 * loop so that neither the wall-time budget nor a cancel could stop it.
 */
export class StreamWatch {
  private visible = false;
  private fence = false;
  private codeLines = 0;
  private length = 0;
  /** The last characters seen, for a fence split across two deltas. */
  private carry = '';
  /**
   * The answer's last characters, for the loop check: the streamed answer itself is a chain of
   * concatenations, and reading its end would flatten all of it again per delta.
   */
  private tail = '';
  /** The line being streamed: its first and last characters, and its length. */
  private lineHead = '';
  private lineTail = '';
  private lineLength = 0;

  constructor(private readonly options: StreamWatchOptions) {}

  push(delta: string): void {
    this.length += delta.length;
    this.tail = (this.tail + delta).slice(-TAIL_KEPT);
    if (!this.visible && /\S/.test(delta)) this.visible = true;
    if (!this.fence && (this.carry + delta).includes(FENCE_MARK)) this.fence = true;
    this.carry = delta.length >= 2 ? delta.slice(-2) : (this.carry + delta).slice(-2);
    if (this.fence || this.codeLines >= 2) return;
    let from = 0;
    for (let nl = delta.indexOf('\n'); nl !== -1; nl = delta.indexOf('\n', from)) {
      this.endLine(delta.slice(from, nl));
      from = nl + 1;
    }
    this.extendLine(delta.slice(from));
  }

  verdict(elapsedMs: number): StreamVerdict {
    const { proseCharLimit = STREAM_WATCH_DEFAULTS.proseCharLimit, startDeadlineMs = STREAM_WATCH_DEFAULTS.startDeadlineMs } = this.options;
    if (!this.visible) {
      return elapsedMs >= startDeadlineMs
        ? { stop: true, reason: 'noStart', detail: `no text after ${Math.round(elapsedMs)} ms` }
        : { stop: false };
    }
    if (this.options.expectCode && this.length >= proseCharLimit && !this.fence && this.codeLines + (this.lineIsCode() ? 1 : 0) < 2) {
      return { stop: true, reason: 'proseWithoutCode', detail: `${this.length} characters of prose and no code yet` };
    }
    const loop = describeRepetition(findTailLoop(this.tail));
    return loop ? { stop: true, reason: 'repetitionLoop', detail: loop } : { stop: false };
  }

  private extendLine(part: string): void {
    if (this.lineHead.length < LINE_END_CHARS) this.lineHead += part.slice(0, LINE_END_CHARS - this.lineHead.length);
    this.lineTail = (this.lineTail + part).slice(-LINE_END_CHARS);
    this.lineLength += part.length;
  }

  private endLine(part: string): void {
    this.extendLine(part);
    if (this.lineIsCode()) this.codeLines += 1;
    this.lineHead = '';
    this.lineTail = '';
    this.lineLength = 0;
  }

  /** A short line whole; a long one by its two ends, joined so that neither end starts or ends a line it did not. */
  private lineIsCode(): boolean {
    if (this.lineLength === 0) return false;
    const line = this.lineLength <= LINE_END_CHARS ? this.lineHead : `${this.lineHead} ${this.lineTail}`;
    CODE_LINE.lastIndex = 0;
    const found = CODE_LINE.test(line);
    CODE_LINE.lastIndex = 0;
    return found;
  }
}

// ---- Code and prose -------------------------------------------------------------------

const FENCE_MARK = '```';
/** A fenced block; an unterminated one (a stream cut mid-block) runs to the end. */
const FENCED_BLOCK = /```[^\n]*\n?([\s\S]*?)(?:```|$)/g;
/** A line that reads as code in the languages a ticket touches. */
const CODE_LINE =
  /^[ \t]*(?:(?:export|import|const|let|var|function|class|interface|enum|return|def|public|private|protected)\b|type[ \t]+\w+[ \t]*=|(?:if|for|while|switch)[ \t]*\()|[;{][ \t]*$|=>/gm;
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*|#(?:\s|$)|<!--|--\s|\.\.\.|…)/;
const PUNCTUATION_LINE = /^[\s{}()[\];,]*$/;
/** `function f() {` or `def f():` with only comments inside is a stub, not code. */
const BLOCK_OPENER = /(?:\{|:)\s*$/;

function splitAnswer(text: string): Answer {
  const blocks = [...text.matchAll(FENCED_BLOCK)];
  if (blocks.length > 0) {
    return { text, code: blocks.map((m) => m[1] ?? '').join('\n'), prose: text.replace(FENCED_BLOCK, '\n') };
  }
  const bareCode = hasCodeLines(text) || (countVisible(text) > 0 && nonBlankLines(text).every((l) => COMMENT_LINE.test(l)));
  return bareCode ? { text, code: text, prose: '' } : { text, code: '', prose: text };
}

function hasCodeLines(text: string, needed = 2): boolean {
  CODE_LINE.lastIndex = 0;
  let found = 0;
  while (found < needed && CODE_LINE.exec(text)) found += 1;
  CODE_LINE.lastIndex = 0;
  return found >= needed;
}

function describeCommentOnly(code: string): string | undefined {
  const lines = nonBlankLines(code);
  const comments = lines.filter((l) => COMMENT_LINE.test(l)).length;
  const statements = lines.filter((l) => !COMMENT_LINE.test(l) && !PUNCTUATION_LINE.test(l) && !BLOCK_OPENER.test(l)).length;
  return comments > 0 && statements === 0 ? `${comments} comment line(s) and no statement` : undefined;
}

const nonBlankLines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
const countVisible = (text: string) => text.replace(/\s+/g, '').length;

// ---- Words ------------------------------------------------------------------------------

const NEAR_EMPTY_CHARS = 20;
const THINK_TAG = /<\/?(?:think|thinking|reasoning|scratchpad)>/gi;
const SELF_DOUBT_TURNS = 3;
const SELF_DOUBT =
  /\b(?:wait[,.!:]|hmm+\b|actually,|on second thought|let me (?:re-?check|reconsider|rethink|re-?think|start over|try (?:that )?again)|no,? that(?:'s| is) (?:not right|wrong|incorrect)|I (?:made a mistake|was wrong))/gi;

// ---- Repetition -------------------------------------------------------------------------

interface Repetition {
  unit: string;
  times: number;
}

/** A line block repeated this often in a row is a loop; fewer may be legitimate code. */
const LOOP_TIMES = 4;
const LOOP_MAX_BLOCK_LINES = 4;
const LOOP_MIN_UNIT_CHARS = 16;
/** The tail check: a unit repeated to cover this many characters, at least three times. */
const TAIL_MIN_SPAN = 200;
const TAIL_MAX_PERIOD = 400;
const TAIL_MAX_SCAN = 4_000;
/** Enough of the end for findTailLoop's longest scan. */
const TAIL_KEPT = TAIL_MAX_SCAN + 2 * TAIL_MAX_PERIOD;

function describeRepetition(found: Repetition | undefined): string | undefined {
  if (!found) return undefined;
  const unit = found.unit.trim().replace(/\s+/g, ' ');
  return `"${unit.length > 60 ? `${unit.slice(0, 57)}...` : unit}" repeated ${found.times} times`;
}

function findRepetition(text: string): Repetition | undefined {
  return findRepeatedLines(text) ?? findTailLoop(text);
}

/** The same block of 1 to 4 lines, over and over, anywhere in the answer. */
function findRepeatedLines(text: string): Repetition | undefined {
  const lines = text.split('\n').map((l) => l.trimEnd());
  const visible = lines.map(countVisible);
  for (let size = 1; size <= LOOP_MAX_BLOCK_LINES; size++) {
    for (let start = 0; start + size * LOOP_TIMES <= lines.length; start++) {
      let unitChars = 0;
      for (let k = 0; k < size; k++) unitChars += visible[start + k] ?? 0;
      if (unitChars < LOOP_MIN_UNIT_CHARS) continue;
      let times = 1;
      while (sameLines(lines, start, start + times * size, size)) times += 1;
      if (times >= LOOP_TIMES) return { unit: lines.slice(start, start + size).join('\n'), times };
    }
  }
  return undefined;
}

function sameLines(lines: string[], a: number, b: number, size: number): boolean {
  if (b + size > lines.length) return false;
  for (let k = 0; k < size; k++) if (lines[a + k] !== lines[b + k]) return false;
  return true;
}

/**
 * A loop the answer ended in, at the character level (a phrase, or a line without breaks):
 * the shortest period whose repetition covers the tail. Most periods fail at the first
 * character, so this stays cheap enough to run on every streamed delta.
 */
function findTailLoop(text: string): Repetition | undefined {
  const n = text.length;
  for (let period = 1; period <= TAIL_MAX_PERIOD && period * 3 <= n; period++) {
    let run = 0;
    const limit = Math.min(n - period, TAIL_MAX_SCAN);
    while (run < limit && text.charCodeAt(n - 1 - run) === text.charCodeAt(n - 1 - run - period)) run += 1;
    const span = run + period;
    if (span < TAIL_MIN_SPAN || span < period * 3) continue;
    const unit = text.slice(n - period);
    if (/[\p{L}\p{N}]/u.test(unit)) return { unit, times: Math.floor(span / period) };
  }
  return undefined;
}
