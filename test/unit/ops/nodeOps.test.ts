import assert from 'node:assert/strict';
import { edits, failure, OpsWorkspace } from '../../support/opsFixture';

/**
 * Each op kind on a copy of the blog-api fixture, with real Tree-sitter and the real language
 * service: what it writes, that the result type-checks, that applying it again writes
 * nothing, and that each way it can fail is a structured error with a fix.
 */
describe('ops: NodeOps over Tree-sitter and the language service', function () {
  this.timeout(60_000);
  let w: OpsWorkspace;
  before(() => {
    w = new OpsWorkspace();
  });
  afterEach(() => w.reset());
  after(() => w.dispose());

  describe('renameSymbol', () => {
    const op = { op: 'renameSymbol' as const, file: 'src/store/postStore.ts', symbol: 'getPosts', to: 'listPostsPage' };
    // Every file that names getPosts, found by text: the rename must touch each (the fixture may grow).
    let everywhere: string[];
    beforeEach(() => {
      everywhere = w.sourceFiles().filter((f) => /\bgetPosts\b/.test(w.read(f)));
    });

    it('renames every reference, through imports and re-exports, and the project still type-checks', async () => {
      assert.ok(['src/store/postStore.ts', 'src/handlers/posts.ts', 'src/index.ts'].every((f) => everywhere.includes(f)));
      const written = edits(await w.apply(op, everywhere));
      assert.deepEqual(
        written.map((e) => e.path),
        [...everywhere].sort((a, b) => a.localeCompare(b)),
      );
      assert.match(w.read('src/store/postStore.ts'), /^export function listPostsPage\(\{ page, perPage \}/m);
      assert.match(w.read('src/handlers/posts.ts'), /^import \{ getPost, listPostsPage \} from '\.\.\/store\/postStore';$/m);
      assert.match(w.read('src/handlers/posts.ts'), /body: listPostsPage\(\{ page, perPage \}\)/);
      assert.match(
        w.read('src/index.ts'),
        /export \{ allPosts, countPosts, getPost, listPostsPage, postsByTag \} from '\.\/store\/postStore';/,
      );
      for (const f of everywhere) assert.doesNotMatch(w.read(f), /\bgetPosts\b/, f);
      assert.deepEqual(w.errors(), []);
    });

    it('is a no-op the second time', async () => {
      edits(await w.apply(op, everywhere));
      assert.deepEqual(edits(await w.apply(op, everywhere)), []);
    });

    it('keeps the key of a shorthand property: the object keeps its shape', async () => {
      w.write('src/fmt.ts', 'export function fmt(n: number): string {\n  return n.toFixed(1);\n}\n');
      w.write('src/api.ts', "import { fmt } from './fmt';\nexport const api = { fmt };\n");
      edits(await w.apply({ op: 'renameSymbol', file: 'src/fmt.ts', symbol: 'fmt', to: 'formatNumber' }, ['src/fmt.ts', 'src/api.ts']));
      assert.equal(w.read('src/api.ts'), "import { formatNumber } from './fmt';\nexport const api = { fmt: formatNumber };\n");
      assert.deepEqual(w.errors(), []);
    });

    it("renames the name in doc comments too ({@link}), as the editor's rename does", async () => {
      w.write(
        'src/fmt.ts',
        '/** Formats a number; {@link fmt} rounds to one place. */\nexport function fmt(n: number): string {\n  return n.toFixed(1);\n}\n',
      );
      w.write('src/api.ts', "import { fmt } from './fmt';\n/** The API. Numbers go through {@link fmt}. */\nexport const api = { fmt };\n");
      edits(await w.apply({ op: 'renameSymbol', file: 'src/fmt.ts', symbol: 'fmt', to: 'formatNumber' }, ['src/fmt.ts', 'src/api.ts']));
      assert.match(w.read('src/fmt.ts'), /\{@link formatNumber\} rounds/);
      assert.match(w.read('src/api.ts'), /go through \{@link formatNumber\}/);
      assert.deepEqual(w.errors(), []);
    });

    it('fails with a scope addition when a reference lies outside scope.write, and writes nothing', async () => {
      const before = w.read('src/handlers/posts.ts');
      const f = failure(await w.apply(op, ['src/store/postStore.ts']));
      const others = everywhere.filter((p) => p !== 'src/store/postStore.ts').sort((a, b) => a.localeCompare(b));
      assert.equal(f.reason, `renaming getPosts to listPostsPage must also change ${others.join(', ')}, which scope.write does not list`);
      assert.deepEqual(f.proposal, { kind: 'scopeAddition', paths: others });
      assert.equal(w.read('src/handlers/posts.ts'), before);
    });

    it('fails when a rendered test uses the old name: no op changes a test', async () => {
      w.write(
        'test/ticket/T.test.ts',
        "import { getPosts } from '../../src/store/postStore';\nexport const page = getPosts({ page: 1, perPage: 1 });\n",
      );
      const f = failure(await w.apply(op, [...everywhere, 'test/ticket/T.test.ts'], ['test/ticket/T.test.ts']));
      assert.match(f.reason, /rendered tests still use getPosts \(test\/ticket\/T\.test\.ts\)/);
      assert.equal(f.proposal, undefined);
    });

    it('proposes the near name when the symbol is misspelled', async () => {
      const f = failure(await w.apply({ ...op, symbol: 'getPots' }, everywhere));
      assert.match(f.reason, /has no top-level declaration named getPots/);
      assert.deepEqual(f.proposal, {
        kind: 'opEdit',
        op: { ...op, symbol: 'getPosts' },
        summary: 'rename getPosts, not getPots, which src/store/postStore.ts does not declare',
      });
    });

    it('fails on a name the file already declares, on a local that would capture a reference, and on a non-identifier', async () => {
      assert.match(failure(await w.apply({ ...op, to: 'getPost' }, everywhere)).reason, /already declares getPost/);
      // listPosts destructures a local `page`: renaming getPosts to page would make the call reach it.
      assert.match(failure(await w.apply({ ...op, to: 'page' }, everywhere)).reason, /would (bring errors|reach)/);
      assert.match(failure(await w.apply({ ...op, to: 'class' }, everywhere)).reason, /not a name a declaration can have/);
      assert.doesNotMatch(w.read('src/handlers/posts.ts'), /\bpage\(/);
    });

    it('fails when a local would silently capture a renamed reference, with no type error to show it', async () => {
      w.write(
        'src/limits.ts',
        'export const limit = 10;\nexport function clamp(max: number): number {\n  return Math.min(limit, max);\n}\n',
      );
      const f = failure(await w.apply({ op: 'renameSymbol', file: 'src/limits.ts', symbol: 'limit', to: 'max' }, ['src/limits.ts']));
      assert.match(f.reason, /after the rename, src\/limits\.ts:3 would refer to a local max instead/);
    });
  });

  describe('addImport', () => {
    const file = 'src/handlers/posts.ts';

    it('merges into the existing import from the module instead of adding another', async () => {
      edits(await w.apply({ op: 'addImport', file, from: '../store/postStore', names: ['allPosts', 'countPosts'] }, [file]));
      const text = w.read(file);
      assert.match(text, /^import \{ getPost, getPosts, allPosts, countPosts \} from '\.\.\/store\/postStore';$/m);
      assert.equal(text.match(/from '\.\.\/store\/postStore'/g)?.length, 1);
      assert.deepEqual(w.errors(), []);
    });

    it('is idempotent: names already imported are not imported again', async () => {
      assert.deepEqual(edits(await w.apply({ op: 'addImport', file, from: '../store/postStore', names: ['getPost'] }, [file])), []);
      edits(await w.apply({ op: 'addImport', file, from: '../store/postStore', names: ['allPosts'] }, [file]));
      assert.deepEqual(
        edits(await w.apply({ op: 'addImport', file, from: '../store/postStore', names: ['allPosts', 'getPosts'] }, [file])),
        [],
      );
    });

    it('adds a statement after the last import when the file imports nothing from the module', async () => {
      edits(await w.apply({ op: 'addImport', file, from: '../data/seed', names: ['POST_COUNT', 'seedPosts as seed'] }, [file]));
      assert.match(
        w.read(file),
        /^import \{ parsePaginationParams \} from '\.\.\/utils\/pagination';\nimport \{ POST_COUNT, seedPosts as seed \} from '\.\.\/data\/seed';\n/m,
      );
      assert.deepEqual(w.errors(), []);
    });

    it('merges into a default import and a multi-line list, and adds the first import of a file below its header', async () => {
      w.write('src/shapes.ts', "// header\n'use strict';\nexport const x = 1;\n");
      edits(await w.apply({ op: 'addImport', file: 'src/shapes.ts', from: 'node:path', names: ['join'] }, ['src/shapes.ts']));
      assert.equal(w.read('src/shapes.ts'), "// header\n'use strict';\nimport { join } from 'node:path';\n\nexport const x = 1;\n");
      w.write('src/shapes.ts', "import path from 'node:path';\nimport {\n  a,\n} from './a';\nexport const x = [path, a];\n");
      w.write('src/a.ts', 'export const a = 1;\nexport const b = 2;\n');
      edits(await w.apply({ op: 'addImport', file: 'src/shapes.ts', from: 'node:path', names: ['join'] }, ['src/shapes.ts']));
      edits(await w.apply({ op: 'addImport', file: 'src/shapes.ts', from: './a', names: ['b'] }, ['src/shapes.ts']));
      assert.equal(
        w.read('src/shapes.ts'),
        "import path, { join } from 'node:path';\nimport {\n  a,\n  b,\n} from './a';\nexport const x = [path, a];\n",
      );
    });

    it('fails when the module does not export a name, or does not resolve, or the name is taken', async () => {
      const missing = failure(await w.apply({ op: 'addImport', file, from: '../store/postStore', names: ['getPostz'] }, [file]));
      assert.match(missing.reason, /does not type-check: .*TS2724.*has no exported member named 'getPostz'. Did you mean 'getPost'\?/);
      const module = failure(await w.apply({ op: 'addImport', file, from: '../store/nowhere', names: ['x'] }, [file]));
      assert.match(module.reason, /TS2307: Cannot find module '\.\.\/store\/nowhere'/);
      const taken = failure(await w.apply({ op: 'addImport', file, from: '../types', names: ['getPost'] }, [file]));
      assert.match(taken.reason, /already imports getPost from '\.\.\/store\/postStore'/);
      assert.equal(
        failure(await w.apply({ op: 'addImport', file, from: 'x', names: ['a b'] }, [file])).reason,
        '"a b" is not an import name',
      );
      assert.doesNotMatch(w.read(file), /getPostz|nowhere/);
    });
  });

  describe('setInterfaceField', () => {
    const op = {
      op: 'setInterfaceField' as const,
      file: 'src/types.ts',
      interface: 'Post',
      field: 'readingMinutes',
      type: 'number',
      optional: false,
    };

    it('adds the field after the last member; the errors it causes elsewhere do not fail it', async () => {
      edits(await w.apply(op, ['src/types.ts']));
      assert.match(w.read('src/types.ts'), /^ {2}createdAt: string;\n {2}readingMinutes: number;\n\}/m);
      const errors = w.errors();
      assert.ok(
        errors.some((e) => /^src\/data\/seed\.ts:\d+ TS2345 .*readingMinutes/s.test(e)),
        errors.join('\n'),
      );
      assert.ok(
        errors.every((e) => !e.startsWith('src/types.ts')),
        errors.join('\n'),
      );
    });

    it('is a no-op when the field is there with that type, and changes type and optionality in place', async () => {
      edits(await w.apply(op, ['src/types.ts']));
      assert.deepEqual(edits(await w.apply({ ...op, type: ' number; ' }, ['src/types.ts'])), []);
      edits(await w.apply({ ...op, field: 'tags', type: 'readonly string[]', optional: true }, ['src/types.ts']));
      assert.match(w.read('src/types.ts'), /^ {2}authorId: number;\n {2}tags\?: readonly string\[\];\n {2}createdAt/m);
    });

    it('follows a one-line body and fills an empty one', async () => {
      w.write('src/shapes.ts', 'export interface A { a: number }\nexport interface B {}\n');
      edits(await w.apply({ ...op, file: 'src/shapes.ts', interface: 'A', field: 'b', type: 'string', optional: true }, ['src/shapes.ts']));
      edits(await w.apply({ ...op, file: 'src/shapes.ts', interface: 'B', field: 'data-id', type: 'string' }, ['src/shapes.ts']));
      assert.equal(
        w.read('src/shapes.ts'),
        "export interface A { a: number; b?: string; }\nexport interface B {\n  'data-id': string;\n}\n",
      );
    });

    it('fails on a type that does not parse, or names nothing the file imports', async () => {
      assert.match(failure(await w.apply({ ...op, type: 'number[' }, ['src/types.ts'])).reason, /does not parse/);
      const unknown = failure(await w.apply({ ...op, type: 'Minutes' }, ['src/types.ts']));
      assert.match(unknown.reason, /does not type-check: src\/types\.ts:\d+ TS2304: Cannot find name 'Minutes'/);
      assert.match(unknown.suggestion, /addImport op before this one/);
      assert.doesNotMatch(w.read('src/types.ts'), /readingMinutes/);
    });

    it('proposes the near interface when the name is misspelled', async () => {
      const f = failure(await w.apply({ ...op, interface: 'Pots' }, ['src/types.ts']));
      assert.equal(f.reason, 'src/types.ts declares no interface Pots');
      assert.deepEqual(f.proposal && f.proposal.kind === 'opEdit' && f.proposal.op, { ...op, interface: 'Post' });
    });
  });

  describe('changeTypeAnnotation', () => {
    it('adds a variable annotation, replaces a parameter one and a return one', async () => {
      edits(
        await w.apply({ op: 'changeTypeAnnotation', file: 'src/data/seed.ts', symbol: 'POST_COUNT', type: 'number' }, ['src/data/seed.ts']),
      );
      assert.match(w.read('src/data/seed.ts'), /^export const POST_COUNT: number = 250;$/m);
      edits(
        await w.apply(
          { op: 'changeTypeAnnotation', file: 'src/store/postStore.ts', symbol: 'postsByTag.tag', type: 'Post["tags"][number]' },
          ['src/store/postStore.ts'],
        ),
      );
      edits(
        await w.apply({ op: 'changeTypeAnnotation', file: 'src/store/postStore.ts', symbol: 'allPosts.return', type: 'readonly Post[]' }, [
          'src/store/postStore.ts',
        ]),
      );
      const store = w.read('src/store/postStore.ts');
      assert.match(store, /^export function postsByTag\(tag: Post\["tags"\]\[number\]\): Post\[\] \{$/m);
      assert.match(store, /^export function allPosts\(\): readonly Post\[\] \{$/m);
      assert.deepEqual(w.errors(), []);
    });

    it('annotates arrow functions, wrapping a bare parameter, and does nothing the second time', async () => {
      w.write(
        'src/math.ts',
        'export const double = (n: number) => n * 2;\nexport const inc = (x: number) => x + 1;\nexport const neg = y => -y;\n',
      );
      const scope = ['src/math.ts'];
      edits(await w.apply({ op: 'changeTypeAnnotation', file: 'src/math.ts', symbol: 'double.return', type: 'number' }, scope));
      edits(await w.apply({ op: 'changeTypeAnnotation', file: 'src/math.ts', symbol: 'neg.y', type: 'number' }, scope));
      assert.deepEqual(
        edits(await w.apply({ op: 'changeTypeAnnotation', file: 'src/math.ts', symbol: 'inc.x', type: 'number' }, scope)),
        [],
      );
      assert.equal(
        w.read('src/math.ts'),
        'export const double = (n: number): number => n * 2;\nexport const inc = (x: number) => x + 1;\nexport const neg = (y: number) => -y;\n',
      );
    });

    it("records a type the code does not fit as the Coder's job, not the op's failure", async () => {
      edits(
        await w.apply({ op: 'changeTypeAnnotation', file: 'src/data/seed.ts', symbol: 'POST_COUNT', type: 'string' }, ['src/data/seed.ts']),
      );
      assert.ok(w.errors().some((e) => /^src\/data\/seed\.ts:\d+ TS2322/.test(e)));
    });

    it('fails with a structured error on each wrong target', async () => {
      const op = { op: 'changeTypeAnnotation' as const, file: 'src/store/postStore.ts', type: 'number' };
      const param = failure(await w.apply({ ...op, symbol: 'getPost.idd' }, [op.file]));
      assert.match(param.reason, /getPost\.idd in src\/store\/postStore\.ts: it has no parameter idd \(its parameters: id\)/);
      assert.deepEqual(param.proposal && param.proposal.kind === 'opEdit' && param.proposal.op, { ...op, symbol: 'getPost.id' });
      assert.match(failure(await w.apply({ ...op, symbol: 'getPost' }, [op.file])).reason, /getPost is a function, not a variable/);
      assert.match(failure(await w.apply({ ...op, symbol: 'posts.return' }, [op.file])).reason, /posts is not a function/);
      assert.match(failure(await w.apply({ ...op, symbol: 'a.b.c' }, [op.file])).reason, /not a form the op knows/);
      assert.match(
        failure(await w.apply({ ...op, symbol: 'getPost.id', type: 'Nope' }, [op.file])).reason,
        /TS2304: Cannot find name 'Nope'/,
      );
    });
  });

  it('fails on a file that does not exist or is not TypeScript', async () => {
    const op = { op: 'addImport' as const, from: 'x', names: ['y'] };
    assert.equal(failure(await w.apply({ ...op, file: 'src/nope.ts' }, ['src/nope.ts'])).reason, 'src/nope.ts does not exist');
    assert.equal(failure(await w.apply({ ...op, file: 'README.md' }, ['README.md'])).reason, 'README.md is not a TypeScript file');
  });
  describe('declare', () => {
    it('creates a new module of ambient declarations that the project type-checks, and writes nothing the second time', async () => {
      const op = {
        op: 'declare' as const,
        file: 'src/utils/slug.ts',
        exports: [
          'function slugify(title: string): string[]',
          'export const MAX_SLUG: number;',
          'interface SlugOptions { lower: boolean }',
        ],
      };
      const [edit] = edits(await w.apply(op, ['src/utils/slug.ts']));
      assert.equal(edit?.before, '');
      assert.equal(
        w.read('src/utils/slug.ts'),
        'export declare function slugify(title: string): string[];\nexport declare const MAX_SLUG: number;\nexport declare interface SlugOptions { lower: boolean }\n',
      );
      w.write('src/useSlug.ts', "import { slugify } from './utils/slug';\nexport const parts: string[] = slugify('A b');\n");
      assert.deepEqual(w.errors(), []);
      assert.deepEqual(edits(await w.apply(op, ['src/utils/slug.ts'])), []);
    });

    it('adds to the end of an existing file, naming the types it imports', async () => {
      const before = w.read('src/utils/pagination.ts');
      w.write('src/utils/pagination.ts', "import type { Post } from '../types';\n" + before);
      edits(
        await w.apply({ op: 'declare', file: 'src/utils/pagination.ts', exports: ['function firstPage(posts: Post[]): Post[]'] }, [
          'src/utils/pagination.ts',
        ]),
      );
      assert.ok(w.read('src/utils/pagination.ts').endsWith('\n\nexport declare function firstPage(posts: Post[]): Post[];\n'));
      assert.deepEqual(w.errors(), []);
    });

    it('refuses a name the file already declares: the ticket changes that export, it does not create it', async () => {
      const before = w.read('src/utils/pagination.ts');
      const f = failure(
        await w.apply({ op: 'declare', file: 'src/utils/pagination.ts', exports: ['const DEFAULT_PAGE: string'] }, [
          'src/utils/pagination.ts',
        ]),
      );
      assert.equal(f.reason, 'src/utils/pagination.ts already declares DEFAULT_PAGE, so the ticket changes it rather than creating it');
      assert.match(f.suggestion, /changeTypeAnnotation/);
      assert.equal(w.read('src/utils/pagination.ts'), before);
    });

    it('refuses a type that does not resolve in the file, a body, a missing type and two statements, each with what to write', async () => {
      const unknown = failure(
        await w.apply({ op: 'declare', file: 'src/utils/slug.ts', exports: ['function tagsOf(post: Post): string[]'] }, [
          'src/utils/slug.ts',
        ]),
      );
      assert.match(unknown.reason, /^the declarations do not type-check: src\/utils\/slug\.ts:1 TS2304: Cannot find name 'Post'/);
      assert.match(
        unknown.suggestion,
        /^name the type through its module, as in import\('\.\/types\.js'\)\.Post: src\/utils\/slug\.ts does not exist yet/,
      );
      const inExisting = failure(
        await w.apply({ op: 'declare', file: 'src/utils/pagination.ts', exports: ['function tagsOf(post: Post): string[]'] }, [
          'src/utils/pagination.ts',
        ]),
      );
      assert.match(inExisting.suggestion, /put an addImport op before this one/);
      edits(
        await w.apply({ op: 'declare', file: 'src/utils/slug.ts', exports: ["function tagsOf(post: import('../types').Post): string[]"] }, [
          'src/utils/slug.ts',
        ]),
      );
      assert.deepEqual(w.errors(), []);
      w.reset();
      const body = failure(
        await w.apply({ op: 'declare', file: 'src/utils/slug.ts', exports: ['function f(): number { return 1; }'] }, ['src/utils/slug.ts']),
      );
      assert.match(body.reason, /has a body: declare the signature only/);
      assert.match(
        failure(await w.apply({ op: 'declare', file: 'src/utils/slug.ts', exports: ['function f(a: number)'] }, ['src/utils/slug.ts']))
          .reason,
        /has no return type/,
      );
      assert.match(
        failure(
          await w.apply({ op: 'declare', file: 'src/utils/slug.ts', exports: ['const a: number; const b: number'] }, ['src/utils/slug.ts']),
        ).reason,
        /holds 2 statements/,
      );
      assert.match(
        failure(await w.apply({ op: 'declare', file: 'src/utils/slug.ts', exports: ['const n = 1'] }, ['src/utils/slug.ts'])).reason,
        /has a value: declare its type only/,
      );
      assert.equal(
        failure(await w.apply({ op: 'declare', file: 'src/slug.js', exports: ['const n: number'] }, ['src/slug.js'])).reason,
        'src/slug.js is not a TypeScript file',
      );
    });
  });
});
