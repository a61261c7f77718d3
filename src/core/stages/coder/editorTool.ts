import { z } from 'zod';
import type { Manifest } from '../../schema/manifest';
import type { ModelMessage, ToolCall, ToolSpec } from '../../ports/model';
import { normalizeRelPath } from '../../schema/paths';
import { describeElision, findElision } from './elision';
import { checkWrite } from './writeGate';
import type { CoderFile } from './coderAnswer';

/**
 * The Coder's file editor: the four commands of Claude's text editor tool (`view`,
 * `str_replace`, `insert`, `create`), which the Claude 4 models are trained on, offered to
 * every provider under the same name. The Anthropic provider sends it as the API's own tool
 * type; vscode.lm gets it as a tool with this JSON schema; a script replays its calls.
 */
export const EDITOR_TOOL = 'str_replace_based_edit_tool';

const Path = z.string().min(1).describe('Path relative to the workspace root, e.g. src/handlers/posts.ts');

export const EditorInput = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('view'),
    path: Path,
    view_range: z.array(z.number().int()).length(2).optional().describe('[first, last] line, 1-based; last -1 reads to the end'),
  }),
  z.object({
    command: z.literal('str_replace'),
    path: Path,
    old_str: z.string().min(1).describe('Text copied exactly from the file, whitespace included; it must occur exactly once'),
    new_str: z.string().default('').describe('The replacement text'),
  }),
  z.object({
    command: z.literal('insert'),
    path: Path,
    insert_line: z.number().int().min(0).describe('The line after which to insert (0: at the top)'),
    insert_text: z.string().optional().describe('The text to insert'),
    // The 2025-01 version of the tool named the text `new_str`: a model trained on it is still understood.
    new_str: z.string().optional(),
  }),
  z.object({ command: z.literal('create'), path: Path, file_text: z.string().describe('The whole content of the new file') }),
]);
export type EditorInput = z.infer<typeof EditorInput>;

/**
 * The schema a model without Claude's built-in tool is given: one flat object, since function
 * calling elsewhere (vscode.lm's models among them) wants an object at the top, not a union.
 * The union above still judges every call.
 */
const EditorSchema = z.object({
  command: z.enum(['view', 'str_replace', 'insert', 'create']).describe('view | str_replace | insert | create'),
  path: Path,
  view_range: z.array(z.number().int()).optional().describe('view: [first, last] line, 1-based; last -1 reads to the end'),
  old_str: z
    .string()
    .optional()
    .describe('str_replace: text copied exactly from the file, whitespace included; it must occur exactly once'),
  new_str: z.string().optional().describe('str_replace: the replacement text'),
  insert_line: z.number().int().optional().describe('insert: the line after which to insert (0: at the top)'),
  insert_text: z.string().optional().describe('insert: the text to insert'),
  file_text: z.string().optional().describe('create: the whole content of the new file'),
});

export function editorToolSpec(): ToolSpec {
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(EditorSchema, { io: 'input' }) as Record<string, unknown>;
  return {
    name: EDITOR_TOOL,
    kind: 'textEditor',
    description:
      'Views and edits files of the workspace. Commands: view (a file, with line numbers, or a line range), str_replace (replace old_str, which must ' +
      'occur exactly once, with new_str), insert (insert_text after line insert_line), create (a new file with file_text). Paths are relative to the workspace.',
    inputSchema,
  };
}

type ToolReply = Extract<ModelMessage, { role: 'tool' }>;

/** A refused call, for the log: the command, the path and what the model was told. */
export interface EditRefusal {
  command: string;
  path: string;
  detail: string;
}

/** Lines shown around a failed match or an edit. */
const CONTEXT_LINES = 4;

const numbered = (lines: string[], first: number): string => lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join('\n');

/** Occurrences of `needle` in `hay`, non-overlapping, as the tool counts them. */
function occurrences(hay: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

/** The 1-based line of `old_str`'s first non-blank line that best matches a file line: where the model was looking. */
function nearestLine(lines: string[], oldStr: string): number | undefined {
  const wanted = oldStr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!wanted) return undefined;
  let best: { line: number; score: number } | undefined;
  lines.forEach((l, i) => {
    const score = similarity(l.trim(), wanted);
    if (score > 0 && (!best || score > best.score)) best = { line: i + 1, score };
  });
  return best && best.score >= 0.4 ? best.line : undefined;
}

/** Shared tokens over all tokens: cheap, and good enough to find the line a near-miss meant. */
function similarity(a: string, b: string): number {
  const ta = new Set(a.split(/\W+/).filter(Boolean));
  const tb = new Set(b.split(/\W+/).filter(Boolean));
  if (!ta.size || !tb.size) return 0;
  let shared = 0;
  for (const t of ta) if (tb.has(t)) shared++;
  return shared / Math.max(ta.size, tb.size);
}

/**
 * One Coder attempt's candidate, edited in memory: every call goes through the write gate
 * (scope, tests read-only, no path out of the workspace) and is answered as a tool result.
 * A mistake is answered as a tool error that says how to fix it, and costs no attempt.
 * Nothing reaches the disk here: the attempt writes `files()` when the Coder's turn ends.
 */
export class EditorSession {
  private readonly edited = new Map<string, string>();
  private readonly originals = new Map<string, string | null>();
  readonly refusals: EditRefusal[] = [];

  constructor(
    private readonly manifest: Manifest,
    private readonly read: (path: string) => Promise<string | null>,
    /** The ticket's words: an exported name they mention may be removed. */
    private readonly ticketText: string,
  ) {}

  /** The files the edits changed, whole, in the order first edited. */
  files(): CoderFile[] {
    return [...this.edited].filter(([path, content]) => this.originals.get(path) !== content).map(([path, content]) => ({ path, content }));
  }

  get changed(): boolean {
    return this.files().length > 0;
  }

  /** A file's content in the candidate: as edited, else as in the workspace (null: absent). */
  async contentOf(rawPath: string): Promise<string | null> {
    let path: string;
    try {
      path = normalizeRelPath(rawPath);
    } catch {
      return null;
    }
    return this.current(path);
  }

  /** The current content: the candidate's, else the workspace's. */
  private async current(path: string): Promise<string | null> {
    if (this.edited.has(path)) return this.edited.get(path) ?? null;
    if (!this.originals.has(path)) this.originals.set(path, await this.read(path));
    return this.originals.get(path) ?? null;
  }

  private readable(path: string): boolean {
    const m = this.manifest;
    return m.scope.write.some((f) => f.path === path) || m.scope.read.some((f) => f.path === path) || m.testFiles.includes(path);
  }

  async answer(call: ToolCall): Promise<ToolReply> {
    const reply = (content: string): ToolReply => ({ role: 'tool', toolCallId: call.id, content });
    const refuse = (command: string, path: string, detail: string): ToolReply => {
      this.refusals.push({ command, path, detail });
      return { role: 'tool', toolCallId: call.id, content: detail, isError: true };
    };
    const parsed = EditorInput.safeParse(call.input);
    if (!parsed.success) {
      const command =
        typeof (call.input as { command?: unknown } | null)?.command === 'string'
          ? String((call.input as { command: string }).command)
          : '?';
      return refuse(
        command,
        '',
        `invalid ${EDITOR_TOOL} input: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ')}. Commands: view, str_replace, insert, create.`,
      );
    }
    const input = parsed.data;
    let path: string;
    try {
      path = normalizeRelPath(input.path);
    } catch (err) {
      return refuse(input.command, input.path, `${err instanceof Error ? err.message : String(err)}.`);
    }
    if (input.command === 'view') return this.view(path, input.view_range, reply, refuse);
    const gate = checkWrite(this.manifest, path);
    if (!gate.ok) return refuse(input.command, path, `${gate.detail}. Edit only the files you may write.`);
    const content = await this.current(path);
    switch (input.command) {
      case 'create': {
        if (content !== null) {
          const elided = findElision(content, input.file_text, this.ticketText);
          if (elided) return refuse('create', path, describeElision(path, elided));
        }
        this.edited.set(path, input.file_text);
        return reply(`${content === null ? 'Created' : 'Replaced the whole of'} ${path} (${input.file_text.split('\n').length} lines).`);
      }
      case 'str_replace': {
        if (content === null) return refuse('str_replace', path, `${path} does not exist: create it with the create command.`);
        const found = occurrences(content, input.old_str);
        if (found.length === 0) return refuse('str_replace', path, this.notFound(path, content, input.old_str));
        if (found.length > 1) {
          const lines = found.map((at) => content.slice(0, at).split('\n').length);
          return refuse(
            'str_replace',
            path,
            `old_str was found ${found.length} times in ${path} (at lines ${lines.join(', ')}): nothing was replaced. Add lines around it so that it occurs exactly once.`,
          );
        }
        const next = content.slice(0, found[0]) + input.new_str + content.slice((found[0] ?? 0) + input.old_str.length);
        const elided = findElision(input.old_str, input.new_str, this.ticketText);
        if (elided) return refuse('str_replace', path, describeElision(path, elided));
        this.edited.set(path, next);
        const startLine = content.slice(0, found[0]).split('\n').length;
        return reply(
          `Edited ${path}. The lines around the change now read:\n${this.snippet(next, startLine, startLine + input.new_str.split('\n').length - 1)}`,
        );
      }
      case 'insert': {
        if (content === null) return refuse('insert', path, `${path} does not exist: create it with the create command.`);
        const text = input.insert_text ?? input.new_str;
        if (text === undefined) return refuse('insert', path, 'insert needs insert_text: the text to insert after line insert_line.');
        const lines = content.split('\n');
        if (input.insert_line > lines.length)
          return refuse('insert', path, `insert_line ${input.insert_line} is past the end of ${path}, which has ${lines.length} lines.`);
        const elided = findElision('', text, this.ticketText);
        if (elided?.markers.length) return refuse('insert', path, describeElision(path, { markers: elided.markers, vanished: [] }));
        const added = text.replace(/\n$/, '').split('\n');
        lines.splice(input.insert_line, 0, ...added);
        const next = lines.join('\n');
        this.edited.set(path, next);
        return reply(
          `Inserted ${added.length} line(s) into ${path} after line ${input.insert_line}:\n${this.snippet(next, input.insert_line + 1, input.insert_line + added.length)}`,
        );
      }
    }
  }

  private async view(
    path: string,
    range: number[] | undefined,
    reply: (c: string) => ToolReply,
    refuse: (c: string, p: string, d: string) => ToolReply,
  ): Promise<ToolReply> {
    const listable = [
      ...this.manifest.scope.write.map((f) => f.path),
      ...this.manifest.scope.read.map((f) => f.path),
      ...this.manifest.testFiles,
    ];
    if (!this.readable(path)) {
      const under = listable.filter((p) => p.startsWith(`${path}/`));
      if (under.length) return reply(`Files under ${path} you may view:\n${under.join('\n')}`);
      return refuse('view', path, `${path} is not in the ticket's scope. You may view: ${listable.join(', ')}.`);
    }
    const content = await this.current(path);
    if (content === null) return refuse('view', path, `${path} does not exist yet: create it with the create command.`);
    const lines = content.split('\n');
    const [first = 1, lastRaw = -1] = range ?? [];
    const last = lastRaw === -1 ? lines.length : lastRaw;
    if (first < 1 || first > lines.length || last < first || last > lines.length) {
      return refuse('view', path, `view_range [${range?.join(', ')}] is outside ${path}, which has ${lines.length} lines.`);
    }
    return reply(numbered(lines.slice(first - 1, last), first));
  }

  private notFound(path: string, content: string, oldStr: string): string {
    const lines = content.split('\n');
    const near = nearestLine(lines, oldStr);
    const base = `old_str was not found in ${path}: nothing was replaced. It must match the file exactly, whitespace and line breaks included.`;
    if (near === undefined) return `${base} View the file to copy the text.`;
    return `${base} The nearest lines are:\n${this.snippet(content, near, near)}`;
  }

  private snippet(content: string, from: number, to: number): string {
    const lines = content.split('\n');
    const first = Math.max(1, from - CONTEXT_LINES);
    const last = Math.min(lines.length, to + CONTEXT_LINES);
    return numbered(lines.slice(first - 1, last), first);
  }
}
