import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CancelledError } from '../../../src/core/errors';
import { createLanguageServiceDiagnostics, type LanguageServiceDiagnostics } from '../../../src/node/diagnostics/languageService';
import { neverAborted, repoRoot, TempProject } from '../../support/tempProject';

const tsconfig = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'ES2022', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: true },
  include: ['src'],
});

const types = `export interface Post { id: number; title: string; tags: string[]; author?: { name: string } }
export function slugify(text: string): string { return text.toLowerCase().replace(/ /g, '-'); }
export async function loadCount(): Promise<number> { return 3; }
function hidden(): number { return 1; }
export const keep = hidden;
`;

const signal = neverAborted();

describe('LanguageServiceDiagnostics', function () {
  this.timeout(30_000);

  describe('check', () => {
    let project: TempProject;
    let ls: LanguageServiceDiagnostics;
    before(() => {
      project = new TempProject({
        'tsconfig.json': tsconfig,
        'src/types.ts': types,
        'src/format.ts': `import type { Post } from './types';\nexport function label(p: Post): string { return p.title; }\n`,
        'src/index.ts': `import { label } from './format';\nexport const shown: string = label({ id: 1, title: 't', tags: [] });\n`,
        'src/unrelated.ts': 'export const answer = 42;\n',
      });
      ls = createLanguageServiceDiagnostics(project.root);
    });
    after(() => {
      ls.dispose();
      project.remove();
    });

    it('reports a TS2322 in the changed file and in a file that imports it', async () => {
      project.write(
        'src/types.ts',
        types.replace('tags: string[]', 'tags: string[]; rank: number') + "export const defaultRank: number = 'high';\n",
      );
      project.write('src/format.ts', `import type { Post } from './types';\nexport function label(p: Post): string { return p.rank; }\n`);
      const { checkedFiles, diagnostics } = await ls.check(['src/types.ts'], signal);
      assert.deepEqual(checkedFiles, ['src/types.ts', 'src/format.ts']);
      const ts2322 = diagnostics.filter((d) => d.code === 'TS2322');
      assert.deepEqual(
        ts2322.map((d) => [d.file, d.line, d.category]),
        [
          ['src/types.ts', 6, 'error'],
          ['src/format.ts', 2, 'error'],
        ],
      );
      assert.match(ts2322[1]?.message ?? '', /Type 'number' is not assignable to type 'string'/);
    });

    it('re-checks only the edited file and its direct importers the second time', async () => {
      project.write(
        'src/format.ts',
        `import type { Post } from './types';\nexport function label(p: Post): string { return String(p.rank); }\n`,
      );
      const { checkedFiles, diagnostics } = await ls.check(['src/format.ts'], signal);
      assert.deepEqual(checkedFiles, ['src/format.ts', 'src/index.ts']);
      // index.ts passes a Post without the new field: the importer's error, found without types.ts.
      assert.deepEqual(
        diagnostics.map((d) => [d.file, d.code]),
        [['src/index.ts', 'TS2345']],
      );
    });

    it('checks the importers of a deleted file, which now fail to resolve it', async () => {
      project.write('src/extra.ts', 'export const extra = 1;\n');
      project.write('src/useExtra.ts', "import { extra } from './extra';\nexport const twice = extra * 2;\n");
      await ls.check(['src/extra.ts', 'src/useExtra.ts'], signal);
      rmSync(project.path('src/extra.ts'));
      const { checkedFiles, diagnostics } = await ls.check(['src/extra.ts'], signal);
      assert.deepEqual(checkedFiles, ['src/useExtra.ts']);
      assert.deepEqual(
        diagnostics.map((d) => d.code),
        ['TS2307'],
      );
    });

    it('resolves a type, a member and a nested member, and null for what is not there', async () => {
      assert.equal(await ls.resolveSymbol('src/types.ts', 'Post.tags'), 'string[]');
      assert.equal(await ls.resolveSymbol('src/types.ts', 'Post.author.name'), 'string');
      assert.equal(await ls.resolveSymbol('src/types.ts', 'Post.nope'), null);
      assert.equal(await ls.resolveSymbol('src/types.ts', 'Nope'), null);
      assert.equal(await ls.resolveSymbol('src/types.ts', 'slugify'), '(text: string) => string');
      assert.match(
        (await ls.resolveSymbol('src/types.ts', 'Post')) ?? '',
        /^\{ id: number; title: string; tags: string\[\]; rank: number; author\?: /,
      );
    });

    it('resolves a static member of a class, a member of a namespace and a member of an enum', async () => {
      project.write(
        'src/statics.ts',
        `export class Money {
  static readonly currency = 'EUR';
  static zero(): Money { return new Money(0); }
  constructor(readonly cents: number) {}
  add(other: Money): Money { return new Money(this.cents + other.cents); }
}
export namespace Units {
  export function toCents(euros: number): number { return euros * 100; }
}
export enum Tier { Bronze = 'bronze', Gold = 'gold' }
`,
      );
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Money.zero'), '() => Money');
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Money.currency'), "'EUR'");
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Money.add'), '(other: Money) => Money', 'an instance member still resolves');
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Money.nope'), null);
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Units.toCents'), '(euros: number) => number');
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Tier.Gold'), 'Tier.Gold');
      assert.equal(await ls.resolveSymbol('src/statics.ts', 'Tier.Silver'), null);
    });

    it('reports a broken tsconfig.json once, on the first check', async () => {
      const broken = new TempProject({ 'tsconfig.json': '{ "compilerOptions": { "strict": "yes" } }', 'a.ts': 'export const a = 1;\n' });
      const service = createLanguageServiceDiagnostics(broken.root);
      try {
        const first = await service.check(['a.ts'], signal);
        assert.deepEqual(
          first.diagnostics.map((d) => [d.file, d.code]),
          [['tsconfig.json', 'TS5024']],
        );
        assert.deepEqual((await service.check(['a.ts'], signal)).diagnostics, []);
      } finally {
        service.dispose();
        broken.remove();
      }
    });

    it("parses doc comments as tsc does: a JavaScript file's types, and an import used only by {@link}", async () => {
      // The service skips the doc comments that cannot change an error (a third of a parse); these two can.
      const docs = new TempProject({
        'tsconfig.json': JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'ES2022',
            moduleResolution: 'Bundler',
            strict: true,
            noEmit: true,
            allowJs: true,
            checkJs: true,
            noUnusedLocals: true,
          },
          include: ['src'],
        }),
        'src/half.js': '/** @param {number} n */\nexport function half(n) {\n  return n / 2;\n}\nexport const wrong = half("two");\n',
        'src/slug.ts': 'export function slugify(text: string): string {\n  return text.toLowerCase();\n}\n',
        'src/doc.ts': "import { slugify } from './slug';\n/** Titles become links with {@link slugify}. */\nexport const linked = true;\n",
      });
      const service = createLanguageServiceDiagnostics(docs.root);
      try {
        const { diagnostics } = await service.check(['src/half.js', 'src/doc.ts'], signal);
        assert.deepEqual(
          diagnostics.map((d) => [d.file, d.line, d.code]),
          [['src/half.js', 5, 'TS2345']],
        );
      } finally {
        service.dispose();
        docs.remove();
      }
    });

    it("gives tsc's own errors for a change that hides them behind directives in comments", async () => {
      // A Coder's way to silence a check: a directive in a doc comment or a block comment. Only
      // what tsc honours may silence ours (a one-line block comment; not a doc comment of many lines).
      const hiding = [
        '/** @ts-ignore */',
        'export const a: string = 1;',
        '/* @ts-ignore */',
        'export const b: string = 2;',
        '/**',
        ' * @ts-expect-error',
        ' */',
        'export const c: string = 3;',
        '/** @type {string} */',
        "export const d: number = 'x';",
        '',
      ].join('\n');
      const docs = new TempProject({ 'tsconfig.json': tsconfig, 'src/hide.ts': hiding });
      const service = createLanguageServiceDiagnostics(docs.root);
      try {
        const ours = (await service.check(['src/hide.ts'], signal)).diagnostics.map((d) => `${d.file}(${d.line}): ${d.code}`);
        let tscOut = '';
        try {
          execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/lib/tsc.js'), '-p', '.'], {
            cwd: docs.root,
            encoding: 'utf8',
          });
        } catch (e) {
          tscOut = String((e as { stdout?: string }).stdout);
        }
        const tscs = [...tscOut.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}(${m[2]}): ${m[3]}`);
        assert.deepEqual(tscs, ['src/hide.ts(8): TS2322', 'src/hide.ts(10): TS2322']);
        assert.deepEqual(ours, tscs);
      } finally {
        service.dispose();
        docs.remove();
      }
    });

    it('finds the lib files through libDir when TypeScript is bundled into another file', async () => {
      const dist = new TempProject({
        'entry.ts': [
          `import { createLanguageServiceDiagnostics } from ${JSON.stringify(join(repoRoot, 'src/node/diagnostics/languageService'))};`,
          'const [root, libDir] = process.argv.slice(2) as [string, string];',
          'const ls = createLanguageServiceDiagnostics(root, { libDir });',
          "void ls.check(['src/types.ts'], new AbortController().signal).then((r) => console.log(JSON.stringify(r.diagnostics.map((d) => d.code))));",
        ].join('\n'),
      });
      try {
        await build({
          entryPoints: [dist.path('entry.ts')],
          outfile: dist.path('extension.js'),
          bundle: true,
          platform: 'node',
          format: 'cjs',
          target: 'node20',
          logLevel: 'error',
        });
        const out = execFileSync(
          process.execPath,
          [dist.path('extension.js'), project.root, join(repoRoot, 'node_modules/typescript/lib')],
          { encoding: 'utf8' },
        );
        assert.deepEqual(JSON.parse(out), ['TS2322']);
      } finally {
        dist.remove();
      }
    });

    it('throws CancelledError when the signal is aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(ls.check(['src/types.ts'], controller.signal), CancelledError);
    });
  });

  describe('probe', () => {
    it('checks an in-memory file against the disk as it is now, with overlays standing in for some files, and forgets both after', async () => {
      const project = new TempProject({ 'tsconfig.json': tsconfig, 'src/types.ts': types });
      const ls = createLanguageServiceDiagnostics(project.root);
      try {
        const probe = "import type { Post } from './types';\nexport const tag: string = ({} as Post).tags[0]!;\n";
        assert.deepEqual(await ls.probe('src/probe.ts', probe, signal), []);
        // Another writer (the Coder, in the editor) changes the disk without telling this service.
        project.write('src/types.ts', types.replace('tags: string[]', 'tags: number[]'));
        const now = await ls.probe('src/probe.ts', probe, signal);
        assert.deepEqual(
          now.map((d) => d.code),
          ['TS2322'],
        );
        // The code as it was before that writer: an overlay, for this probe only.
        assert.deepEqual(await ls.probe('src/probe.ts', probe, signal, [{ path: 'src/types.ts', content: types }]), []);
        assert.deepEqual(
          (await ls.probe('src/probe.ts', probe, signal)).map((d) => d.code),
          ['TS2322'],
        );
        const { diagnostics } = await ls.check(['src/types.ts'], signal);
        assert.deepEqual(diagnostics, [], 'the probe file is gone from the program');
      } finally {
        ls.dispose();
        project.remove();
      }
    });
  });

  describe("probe with keepProbes (a ticket's checks)", () => {
    it('keeps the probe file between probes yet answers each text afresh, sees the disk move, and any other check sees the disk only', async () => {
      const project = new TempProject({ 'tsconfig.json': tsconfig, 'src/types.ts': types });
      const ls = createLanguageServiceDiagnostics(project.root, { keepProbes: true });
      try {
        const good = "import type { Post } from './types';\nexport const tag: string = ({} as Post).tags[0]!;\n";
        const broken = good.replace('tags[0]!', 'id');
        const codes = async (text: string) => (await ls.probe('src/probe.test.ts', text, signal)).map((d) => `${d.code}@${d.line}`);
        // A keystroke at a time: broken, fixed, broken again, the same text twice: each is checked as it is.
        assert.deepEqual(await codes(broken), ['TS2322@2']);
        assert.deepEqual(await codes(good), []);
        assert.deepEqual(await codes(broken), ['TS2322@2']);
        assert.deepEqual(await codes(broken), ['TS2322@2']);
        assert.deepEqual(await codes('export const x: string = ;\n'), ['TS1109@1'], 'a syntax error too');
        // The code changes on disk, no one tells the service: the kept probe sees it.
        assert.deepEqual(await codes(good), []);
        project.write('src/types.ts', types.replace('tags: string[]', 'tags: number[]'));
        assert.deepEqual(await codes(good), ['TS2322@2']);
        // A real file at the probe's path: a check reads the disk's, not the kept probe's text.
        project.write('src/probe.test.ts', 'export const n: number = 1;\n');
        const { diagnostics } = await ls.check(['src/probe.test.ts', 'src/types.ts'], signal);
        assert.deepEqual(diagnostics, [], 'the kept probe is out of the program');
        assert.deepEqual(await codes(broken), ['TS2322@2'], 'and the next probe puts it back');
        assert.deepEqual(await codes(broken), ['TS2322@2'], 'the file on disk at that path does not replace the kept probe');
      } finally {
        ls.dispose();
        project.remove();
      }
    });
  });

  describe('autofix', () => {
    let project: TempProject;
    let ls: LanguageServiceDiagnostics;
    beforeEach(() => {
      project = new TempProject({ 'tsconfig.json': tsconfig, 'src/types.ts': types });
      ls = createLanguageServiceDiagnostics(project.root);
    });
    afterEach(() => {
      ls.dispose();
      project.remove();
    });

    it('adds a missing import from a sibling module (TS2304)', async () => {
      project.write('src/page.ts', "export const slug = slugify('Hello World');\n");
      const before = await ls.check(['src/page.ts'], signal);
      assert.deepEqual(
        before.diagnostics.map((d) => d.code),
        ['TS2304'],
      );
      const { applied, refused } = await ls.autofix(['src/page.ts'], (p) => p === 'src/page.ts', signal);
      assert.deepEqual(
        applied.map((f) => [f.file, f.code, f.fixName, f.files]),
        [['src/page.ts', 'TS2304', 'import', ['src/page.ts']]],
      );
      assert.deepEqual(refused, []);
      assert.match(readFileSync(project.path('src/page.ts'), 'utf8'), /^import \{ slugify \} from "\.\/types";/);
      assert.deepEqual((await ls.check(['src/page.ts'], signal)).diagnostics, []);
    });

    it('fixes a misspelled name and a missing await', async () => {
      project.write(
        'src/count.ts',
        [
          "import { loadCount } from './types';",
          'const total = 2;',
          'export async function next(): Promise<number> { const n = loadCount(); return n + totl; }',
          '',
        ].join('\n'),
      );
      const { applied } = await ls.autofix(['src/count.ts'], () => true, signal);
      assert.deepEqual(applied.map((f) => f.fixName).sort(), ['addMissingAwaitToInitializer', 'spelling']);
      assert.match(readFileSync(project.path('src/count.ts'), 'utf8'), /const n = await loadCount\(\); return n \+ total;/);
      assert.deepEqual((await ls.check(['src/count.ts'], signal)).diagnostics, []);
    });

    it('refuses a fix that would touch a file outside the allowed ones', async () => {
      project.write('src/consumer.ts', "import { hidden } from './types';\nexport const h = hidden();\n");
      const { applied, refused } = await ls.autofix(['src/consumer.ts'], (p) => p === 'src/consumer.ts', signal);
      assert.deepEqual(applied, []);
      assert.deepEqual(
        refused.map((f) => [f.file, f.code, f.fixName, f.files]),
        [['src/consumer.ts', 'TS2459', 'fixImportNonExportedMember', ['src/types.ts']]],
      );
      assert.equal(readFileSync(project.path('src/types.ts'), 'utf8'), types);
    });
  });
});
