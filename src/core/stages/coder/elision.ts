import type { Manifest } from '../../schema/manifest';

/**
 * Elided code: a model told to write a whole file often writes the part it changed and a
 * marker such as `// ... existing code ...` for the rest. Written to disk, that deletes
 * everything the marker stands for, and when no test or importer reaches the deleted code
 * the run would pass. A whole-file answer (or an edit) is checked here before it is written:
 * a new marker line, or an exported declaration that vanished without the ticket naming it,
 * refuses it with the reason, which goes back to the Coder.
 */

/**
 * A line that is only a comment standing in for code, in the words models use: "... existing
 * code ...", "rest of the file unchanged", "[previous code]", "other functions remain the
 * same", "(omitted for brevity)", or an ellipsis alone. The whole comment must be such a
 * phrase: a comment that explains code ("returns the input unchanged") is not one.
 */
const PLACEHOLDER = new RegExp(
  '^(?:' +
    [
      '(?:the\\s+)?(?:rest|remainder)(?:\\s+of\\s+(?:the\\s+)?(?:file|code|module|class|component|functions?|methods?|implementation|exports?))?',
      '(?:all\\s+)?(?:the\\s+)?(?:existing|previous|remaining|original|other|unchanged|same|old)\\s+(?:code|functions?|methods?|exports?|imports?|implementation|content|logic|helpers?|lines?|types?|declarations?|handlers?|cases?)',
      'everything\\s+else',
      'unchanged',
      'omitted(?:\\s+for\\s+brevity)?',
      'same\\s+as\\s+before',
      'no\\s+changes?(?:\\s+(?:below|above|here))?',
    ].join('|') +
    ')(?:\\s+(?:is\\s+|are\\s+)?(?:unchanged|remains?\\s+(?:unchanged|the\\s+same|as\\s+(?:is|before))|stays?\\s+the\\s+same|as\\s+before|here|goes\\s+here|omitted(?:\\s+for\\s+brevity)?|not\\s+shown|same\\s+as\\s+before|unchanged\\s+below|\\s*etc))?$',
  'i',
);

const COMMENT_LINE = /^\s*(?:\/\/+|\/\*+|\*+|#|<!--|\{\s*\/\*)\s*(.*?)\s*(?:\*+\/\s*\}?|-->)?\s*$/;
const ELLIPSIS = /\.{3,}|…/g;

/** Whether a comment's words stand in for code. */
export function isPlaceholder(words: string): boolean {
  const hasEllipsis = /\.{3,}|…/.test(words);
  const core = words
    .replace(ELLIPSIS, ' ')
    .replace(/[()[\]{}:;,.!-]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (core === '') return hasEllipsis;
  return PLACEHOLDER.test(core);
}

/** The elision markers of a text: comment-only lines whose words stand in for code. */
export function elisionMarkers(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const m = COMMENT_LINE.exec(raw);
    if (m && isPlaceholder(m[1] ?? '')) out.push(raw.trim());
  }
  return out;
}

const IDENT = '[A-Za-z_$][\\w$]*';
const EXPORTED_DECL = new RegExp(
  `^\\s*export\\s+(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\s*\\*?|class|const|let|var|interface|type|enum|namespace)\\s+(${IDENT})`,
  'gm',
);
const EXPORT_LIST = /^\s*export\s+(?:type\s+)?\{([^}]*)\}/gm;

/** The names a module exports by declaration or by an export list (not `export * from`). */
export function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(EXPORTED_DECL)) if (m[1]) names.add(m[1]);
  for (const m of text.matchAll(EXPORT_LIST)) {
    for (const part of (m[1] ?? '').split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name && /^[A-Za-z_$][\w$]*$/.test(name)) names.add(name);
    }
  }
  return names;
}

/** The ticket's own words, as the manifest carries them: an exported name they mention may be removed. */
export function ticketWords(m: Pick<Manifest, 'title' | 'description' | 'acceptance'>): string {
  return [m.title, m.description, ...m.acceptance.map((a) => a.text)].join('\n');
}

export interface ElisionFinding {
  /** New marker lines, as written. */
  markers: string[];
  /** Exported names the old content had and the new one lacks, that the ticket does not name. */
  vanished: string[];
}

/**
 * What a whole new content drops of the old that the ticket did not ask for: marker lines it
 * adds (a marker the file already had is the project's own) and exported names that vanish
 * (a name the ticket's text mentions may go: "remove `legacyFormat`"). Undefined: nothing.
 */
export function findElision(before: string, after: string, ticketText: string): ElisionFinding | undefined {
  const had = new Map<string, number>();
  for (const m of elisionMarkers(before)) had.set(m, (had.get(m) ?? 0) + 1);
  const markers: string[] = [];
  for (const m of elisionMarkers(after)) {
    const left = had.get(m) ?? 0;
    if (left > 0) had.set(m, left - 1);
    else markers.push(m);
  }
  const now = exportedNames(after);
  const vanished = [...exportedNames(before)].filter(
    (n) => !now.has(n) && !new RegExp(`(^|[^\\w$])${n.replace(/\$/g, '\\$')}([^\\w$]|$)`).test(ticketText),
  );
  return markers.length || vanished.length ? { markers, vanished } : undefined;
}

/** The reason the Coder is told, in words that say how to fix it. */
export function describeElision(path: string, f: ElisionFinding): string {
  const parts: string[] = [];
  if (f.markers.length) {
    parts.push(
      `it replaces code with ${f.markers.length === 1 ? 'a placeholder comment' : `${f.markers.length} placeholder comments`} (${f.markers
        .slice(0, 3)
        .map((m) => JSON.stringify(m))
        .join(', ')})`,
    );
  }
  if (f.vanished.length) {
    const shown = f.vanished.slice(0, 8).join(', ') + (f.vanished.length > 8 ? ` and ${f.vanished.length - 8} more` : '');
    parts.push(`it drops ${f.vanished.length} exported declaration(s) the ticket does not ask to remove (${shown})`);
  }
  return (
    `${path} was not written: ${parts.join(', and ')}. Writing it would delete that code. ` +
    'Change only what the ticket asks with str_replace edits (an old_str copied exactly from the file), or write the whole file with nothing left out.'
  );
}
