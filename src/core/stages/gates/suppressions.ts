import type { CodeDiagnostic, LintProblem } from '../../schema/checks';
import { changedLines, type ChangedFile } from '../common/diff';

/**
 * Comments that tell a tool to look away. A gate judges what its tool sees, so a change that
 * adds one of these can pass by hiding its faults: `// @ts-nocheck` above a type error passes
 * the type-check, `eslint-disable` a lint error, `istanbul ignore` an unrun branch. Each gate
 * counts the ones the run added, on the lines it wrote, as faults of its own; the ones the
 * project already had are not the run's.
 */
const DIRECTIVES = {
  typecheck: /@ts-(?:nocheck|ignore|expect-error)\b/,
  lint: /\beslint-disable(?:-next-line|-line)?\b/,
  coverage: /\b(?:istanbul|c8|v8)\s+ignore\b/,
} as const;

export type SuppressedTool = keyof typeof DIRECTIVES;

export interface AddedSuppression {
  file: string;
  line: number;
  column: number;
  directive: string;
}

const WHAT: Record<SuppressedTool, string> = {
  typecheck: 'type errors from the type-check',
  lint: 'lint problems from the linter',
  coverage: 'lines from the coverage measure',
};

/** The directives for `tool` on lines the run added or changed, in the files it wrote. */
export function addedSuppressions(changes: readonly ChangedFile[], tool: SuppressedTool): AddedSuppression[] {
  const found: AddedSuppression[] = [];
  for (const c of changes) {
    if (c.after === null) continue;
    const text = c.after.replace(/\r\n?/g, '\n').split('\n');
    for (const line of changedLines(c.before, c.after)) {
      const m = DIRECTIVES[tool].exec(text[line - 1] ?? '');
      if (m) found.push({ file: c.path, line, column: m.index + 1, directive: m[0] });
    }
  }
  return found;
}

function suppressionMessage(s: AddedSuppression, tool: SuppressedTool): string {
  return `the change adds "${s.directive}", which hides ${WHAT[tool]}: remove it and fix what it hides`;
}

/** As the type-check's own findings, so the gate, its repair and the views treat them as errors. */
export function suppressionDiagnostics(found: readonly AddedSuppression[]): CodeDiagnostic[] {
  return found.map((s) => ({
    file: s.file,
    line: s.line,
    column: s.column,
    code: 'added-suppression',
    category: 'error',
    message: suppressionMessage(s, 'typecheck'),
  }));
}

/** As lint errors, under a rule name of Ticket Runner's own. */
export function suppressionProblems(found: readonly AddedSuppression[]): LintProblem[] {
  return found.map((s) => ({
    file: s.file,
    line: s.line,
    column: s.column,
    rule: 'ticket-runner/added-suppression',
    severity: 'error',
    message: suppressionMessage(s, 'lint'),
  }));
}
