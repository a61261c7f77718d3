import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/tempWorkspace';

/** The README is the guide a new user reads first; reference material goes to docs/. */
const README_MAX_WORDS = 5000;

/**
 * The project's own Markdown pages: the README, the two maps for contributors, the Marketplace page
 * (packed as the .vsix's README, at the package's root as it is at the repository's) and docs/.
 */
const PAGES = [
  'README.md',
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  'MARKETPLACE.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** A page's text without its fenced code blocks, where a `#` or a `](` is code, not Markdown. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

/** The anchors GitHub gives a page's headings: lower case, punctuation gone, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Every relative link and image of a page, as `target#anchor` (web addresses left out). */
function relativeLinks(text: string): string[] {
  const inline = [
    ...prose(text)
      .replace(/`[^`\n]*`/g, '')
      .matchAll(/\]\(([^)\s]+)\)/g),
  ].map((m) => m[1]!);
  return inline.filter((l) => !/^[a-z]+:/i.test(l));
}

describe('the Markdown pages', () => {
  it(`the README stays a guide: at most ${README_MAX_WORDS} words, as wc -w counts them`, () => {
    const words = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split(/\s+/).filter(Boolean).length;
    assert.ok(words <= README_MAX_WORDS, `README.md has ${words} words: move reference material to a page under docs/`);
  });

  it('ARCHITECTURE.md stays one page (200 lines at most) and names every layer', () => {
    const text = readFileSync(path.join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8');
    const lines = text.trimEnd().split('\n').length;
    assert.ok(lines <= 200, `ARCHITECTURE.md has ${lines} lines: move a recipe to CONTRIBUTING.md`);
    const layers = ['src/core', 'src/node', 'src/cli', 'src/vscode', 'src/lsp', 'src/shared', 'webview-ui'];
    assert.deepEqual(
      layers.filter((l) => !text.includes(`\`${l}`)),
      [],
      'each layer is named',
    );
  });

  it('every relative link and picture points at a file that exists, and every anchor at a heading of its page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(path.join(REPO_ROOT, page), 'utf8');
      for (const link of relativeLinks(text)) {
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target = file ? path.join(REPO_ROOT, path.dirname(page), decodeURIComponent(file)) : path.join(REPO_ROOT, page);
        if (!existsSync(target)) broken.push(`${page}: ${link} (no such file)`);
        else if (anchor !== undefined && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(anchor))
          broken.push(`${page}: ${link} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('finds a heading by the anchor GitHub gives it', () => {
    assert.deepEqual(
      [...anchors('# What "passed" guarantees\n## With `vscode-lm`\n```\n# code\n```\n## Safety\n## Safety\n')],
      ['what-passed-guarantees', 'with-vscode-lm', 'safety', 'safety-1'],
    );
  });
});
