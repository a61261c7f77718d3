import { PathError } from '../errors';

/**
 * Workspace-relative path handling, in the core (which has no node:path). Every path a
 * model or a ticket names goes through `normalizeRelPath` before any port sees it.
 */

/** Normalizes a workspace-relative path; throws PathError when it is absolute or escapes. */
export function normalizeRelPath(input: string): string {
  const p = input.replace(/\\/g, '/').trim();
  if (p === '') throw new PathError('empty path');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw new PathError(`"${input}" is absolute: use a path relative to the workspace root`);
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw new PathError(`"${input}" escapes the workspace`);
      out.pop();
    } else out.push(seg);
  }
  if (out.length === 0) throw new PathError(`"${input}" names the workspace root, not a file`);
  return out.join('/');
}

/** The normalized path, or undefined for one `normalizeRelPath` refuses: for a value still being typed. */
export function relPathOrNone(input: string): string | undefined {
  try {
    return normalizeRelPath(input);
  } catch (err) {
    if (err instanceof PathError) return undefined;
    throw err;
  }
}

/** The project's own test files, by the conventions runners share: a test folder, or *.test.* / *.spec.*. */
export function isTestPath(path: string): boolean {
  return /(^|\/)(tests?|__tests__)\//.test(path) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(path);
}

/** Source code a runner can load. */
export const isCodePath = (path: string): boolean => /\.[cm]?[jt]sx?$/.test(path);

/** Files whose name says they configure a tool: never a test plan's target, even when new. */
const CONFIG_NAME = /^(package(-lock)?\.json|tsconfig(\..*)?\.json|jsconfig\.json|\..*rc(\..*)?|.*\.config\.[cm]?[jt]s|.*\.config\.json)$/;

/**
 * Why a rendered test may not be written at `path`, or undefined when it may. A test plan
 * writes its targets from scratch, so a target must be a new file or an existing test file:
 * rendering over a source file, a config or the run's own records would let a ticket replace
 * the code, the tooling or the oracle's records with text the run then trusts. `rendered`: the
 * file exists and carries the materializer's header (a run rendered it before).
 */
export function testTargetProblem(path: string, existing: 'none' | 'rendered' | 'other', ticketPath: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (path === '.ticket-runner' || path.startsWith('.ticket-runner/')) return "is inside .ticket-runner/, the run's own records";
  if (path === ticketPath || path.startsWith('.tickets/')) return 'is a ticket file';
  if (CONFIG_NAME.test(name)) return 'is a configuration file';
  if (!isCodePath(path)) return 'is not a JavaScript or TypeScript file';
  if (existing === 'other' && !isTestPath(path)) return 'is an existing source file';
  return undefined;
}

/** The folder part of a relative path ('' at the root). */
export function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}
