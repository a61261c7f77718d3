import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * A deterministic generator of TypeScript repos for the benchmark. Module i depends only on
 * i (its imports, names and body come from a PRNG seeded with i), so the first modules are
 * byte-identical in every size: a ticket scoped to them sees the same files at 10k and at
 * 100k lines, and only the size of the rest of the repo differs.
 */

/** Modules per folder; each folder also gets a barrel that re-exports its modules, as real repos do. */
const PER_FOLDER = 50;
/** A module imports from modules at most this far before it: importers stay few at any size, as in real code. */
const IMPORT_WINDOW = 24;
/** Modules out of ten that have a test file: about 300 test files at 100k lines and 30 at 10k, as real suites are sized. */
const TESTED_PER_TEN = 3;

/** mulberry32: small, fast and the same on every machine, so two runs generate the same bytes. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (i: number) => String(i).padStart(4, '0');
export const moduleName = (i: number) => `M${pad(i)}`;
const folderOf = (i: number) => `g${String(Math.floor(i / PER_FOLDER)).padStart(2, '0')}`;
/** The workspace-relative path of module i. */
export const modulePath = (i: number) => `src/${folderOf(i)}/m${pad(i)}.ts`;

/** The earlier modules module i imports from: one to three, inside the window. */
export function importsOf(i: number): number[] {
  if (i === 0) return [];
  const rand = prng(i * 7919 + 17);
  const want = 1 + Math.floor(rand() * 3);
  const picked = new Set<number>();
  for (let n = 0; n < want * 4 && picked.size < want; n++) picked.add(Math.max(0, i - 1 - Math.floor(rand() * Math.min(i, IMPORT_WINDOW))));
  return [...picked].sort((a, b) => a - b);
}

function relImport(from: number, to: number): string {
  const rel = path.posix.relative(path.posix.dirname(modulePath(from)), modulePath(to).replace(/\.ts$/, ''));
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** The source of module i: interfaces, functions, a class, and calls into what it imports. */
export function moduleSource(i: number): string {
  const rand = prng(i * 104729 + 3);
  const n = moduleName(i);
  const deps = importsOf(i);
  const weight = 1 + Math.floor(rand() * 9);
  const kinds = ['alpha', 'beta', 'gamma', 'delta'].slice(0, 2 + Math.floor(rand() * 3));
  const parent = deps[deps.length - 1];
  const lines: string[] = [
    `// Generated for the Ticket Runner benchmark: module ${i}.`,
    `import type { EntityId, Result } from '${path.posix.relative(path.posix.dirname(modulePath(i)), 'src/shared/core')}';`,
    ...deps.map(
      (d) =>
        `import { clamp${moduleName(d)}, make${moduleName(d)}, score${moduleName(d)}, type ${moduleName(d)}Record } from '${relImport(i, d)}';`,
    ),
    '',
    `export type ${n}Kind = ${kinds.map((k) => `'${k}'`).join(' | ')};`,
    '',
    `export interface ${n}Record {`,
    '  id: EntityId;',
    '  name: string;',
    `  kind: ${n}Kind;`,
    '  weight: number;',
    '  tags: readonly string[];',
    ...(parent !== undefined ? [`  parent?: ${moduleName(parent)}Record;`] : []),
    '}',
    '',
    `export interface ${n}Options {`,
    '  /** The largest value a score may reach. */',
    '  limit: number;',
    '  prefix: string;',
    '  strict?: boolean;',
    '}',
    '',
    `export const ${n}_DEFAULTS: ${n}Options = { limit: ${50 + Math.floor(rand() * 50)}, prefix: '${n.toLowerCase()}' };`,
    '',
    `/** Keeps a value between 0 and the limit. */`,
    `export function clamp${n}(value: number, options: ${n}Options = ${n}_DEFAULTS): number {`,
    '  return Math.min(options.limit, Math.max(0, value));',
    '}',
    '',
    `export function make${n}(id: EntityId, name: string, kind: ${n}Kind = '${kinds[0]}'): ${n}Record {`,
    `  return { id, name, kind, weight: ${weight}, tags: [name.slice(0, 3), kind] };`,
    '}',
    '',
    `export function score${n}(record: ${n}Record, options: ${n}Options = ${n}_DEFAULTS): number {`,
    '  let total = record.weight * record.tags.length;',
    '  for (const tag of record.tags) total += tag.length;',
    ...deps.map((d) => `  total += score${moduleName(d)}(make${moduleName(d)}(record.id, record.name)) / ${2 + (d % 5)};`),
    `  return clamp${n}(total, options);`,
    '}',
    '',
    `export function validate${n}(record: ${n}Record): Result<${n}Record> {`,
    "  if (!record.name.trim()) return { ok: false, error: 'name is empty' };",
    "  if (record.weight < 0) return { ok: false, error: 'weight is negative' };",
    ...(parent !== undefined
      ? [
          `  if (record.parent && clamp${moduleName(parent)}(record.parent.weight) !== record.parent.weight) return { ok: false, error: 'parent out of range' };`,
        ]
      : []),
    '  return { ok: true, value: record };',
    '}',
    '',
    `export class ${n}Registry {`,
    `  private readonly items = new Map<EntityId, ${n}Record>();`,
    '',
    `  add(record: ${n}Record): Result<${n}Record> {`,
    `    const checked = validate${n}(record);`,
    '    if (checked.ok) this.items.set(record.id, record);',
    '    return checked;',
    '  }',
    '',
    `  find(id: EntityId): ${n}Record | undefined {`,
    '    return this.items.get(id);',
    '  }',
    '',
    `  byKind(kind: ${n}Kind): ${n}Record[] {`,
    '    return [...this.items.values()].filter((r) => r.kind === kind);',
    '  }',
    '',
    `  top(count: number, options: ${n}Options = ${n}_DEFAULTS): ${n}Record[] {`,
    `    return [...this.items.values()].sort((a, b) => score${n}(b, options) - score${n}(a, options)).slice(0, count);`,
    '  }',
    '',
    '  get size(): number {',
    '    return this.items.size;',
    '  }',
    '}',
    '',
    `export function summarize${n}(records: readonly ${n}Record[], options: ${n}Options = ${n}_DEFAULTS): string {`,
    '  const parts: string[] = [];',
    '  for (const record of records) {',
    `    const score = score${n}(record, options);`,
    '    parts.push(`${options.prefix}:${record.id}:${record.kind}:${score.toFixed(1)}`);',
    '  }',
    "  return parts.join(', ');",
    '}',
    '',
    `export function group${n}(records: readonly ${n}Record[]): Map<${n}Kind, ${n}Record[]> {`,
    `  const groups = new Map<${n}Kind, ${n}Record[]>();`,
    '  for (const record of records) {',
    '    const list = groups.get(record.kind) ?? [];',
    '    list.push(record);',
    '    groups.set(record.kind, list);',
    '  }',
    '  return groups;',
    '}',
    '',
    `export function merge${n}(a: ${n}Record, b: ${n}Record): ${n}Record {`,
    '  return {',
    '    ...a,',
    '    weight: a.weight + b.weight,',
    '    tags: [...new Set([...a.tags, ...b.tags])],',
    '  };',
    '}',
    '',
  ];
  return lines.join('\n');
}

/** Whether module i has a test file of its own in a repo generated with tests. */
export const hasTest = (i: number) => i % 10 < TESTED_PER_TEN;
/** The workspace-relative path of module i's test file. */
export const testPath = (i: number) => `test/${folderOf(i)}/m${pad(i)}.test.ts`;

/**
 * The node:test file of module i: it imports the module, as a real test does, so a change to
 * the module reaches it through its imports. No case calls a score: a score calls its imports'
 * scores, down chains long enough to never end.
 */
export function testSource(i: number): string {
  const rand = prng(i * 31337 + 11);
  const n = moduleName(i);
  const below = 1 + Math.floor(rand() * 40);
  const above = 1000 + Math.floor(rand() * 9000);
  const id = `id-${Math.floor(rand() * 1000)}`;
  return [
    `// Generated for the Ticket Runner benchmark: the tests of module ${i}.`,
    "import { test } from 'node:test';",
    "import { deepEqual, equal, ok } from 'node:assert/strict';",
    `import { ${n}_DEFAULTS, ${n}Registry, clamp${n}, group${n}, make${n}, merge${n}, validate${n} } from '${path.posix.relative(path.posix.dirname(testPath(i)), modulePath(i).replace(/\.ts$/, ''))}';`,
    '',
    `test('clamp${n} keeps values between 0 and the limit', () => {`,
    `  equal(clamp${n}(-${above}), 0);`,
    `  equal(clamp${n}(${below}), ${below});`,
    `  equal(clamp${n}(${above}), ${n}_DEFAULTS.limit);`,
    '});',
    '',
    `test('validate${n} refuses an empty name and a negative weight', () => {`,
    `  ok(validate${n}(make${n}('${id}', 'name')).ok);`,
    `  equal(validate${n}(make${n}('${id}', '  ')).ok, false);`,
    `  equal(validate${n}({ ...make${n}('${id}', 'name'), weight: -1 }).ok, false);`,
    '});',
    '',
    `test('${n}Registry keeps the valid records', () => {`,
    `  const registry = new ${n}Registry();`,
    `  ok(registry.add(make${n}('a', 'alpha')).ok);`,
    `  equal(registry.add(make${n}('b', ' ')).ok, false);`,
    '  equal(registry.size, 1);',
    "  equal(registry.find('a')?.name, 'alpha');",
    "  equal(registry.byKind('alpha').length, 1);",
    '});',
    '',
    `test('merge${n} adds the weights and joins the tags', () => {`,
    `  const a = make${n}('a', 'alpha');`,
    `  const merged = merge${n}(a, make${n}('b', 'beta'));`,
    '  equal(merged.weight, 2 * a.weight);',
    "  deepEqual(merged.tags, ['alp', 'alpha', 'bet']);",
    `  deepEqual([...group${n}([a, merged]).keys()], ['alpha']);`,
    '});',
    '',
  ].join('\n');
}

/** The test files that import module i, directly or through other modules: those a change to i can break. */
export function testsReaching(i: number, modules: number): string[] {
  const reaches = new Set([i]);
  for (let j = i + 1; j < modules; j++) if (importsOf(j).some((d) => reaches.has(d))) reaches.add(j);
  return [...reaches]
    .filter(hasTest)
    .sort((a, b) => a - b)
    .map(testPath);
}

const SHARED = `// Generated for the Ticket Runner benchmark: the types every module shares.
export type EntityId = string;

export type Result<T> = { ok: true; value: T } | { ok: false; error: string };
`;

const PACKAGE_JSON = JSON.stringify(
  {
    name: 'bench-repo',
    version: '0.0.0',
    private: true,
    type: 'commonjs',
    scripts: { typecheck: 'tsc -p . --noEmit', test: 'node --import tsx --test test/*/*.test.ts' },
  },
  null,
  2,
);

const TSCONFIG = JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      module: 'Node16',
      moduleResolution: 'Node16',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      types: ['node'],
      noEmit: true,
    },
    include: ['src', 'test'],
  },
  null,
  2,
);

export interface GeneratedRepo {
  root: string;
  modules: number;
  lines: number;
  files: number;
  /** How many of the files are the project's own tests (none unless asked for). */
  testFiles: number;
}

/**
 * Writes a repo of `modules` modules into `root`. node_modules links to `nodeModules` so the
 * workspace has its own TypeScript, tsx and @types/node, as a real project would. `tests` adds
 * the project's own suite; the sections that leave it out measure what does not run it, and a
 * run with the default gates on a repo with it pays for the whole suite.
 */
export function generateRepo(root: string, modules: number, nodeModules: string, options: { tests?: boolean } = {}): GeneratedRepo {
  let lines = 0;
  let files = 0;
  let testFiles = 0;
  const write = (rel: string, text: string) => {
    const file = path.join(root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    lines += text.split('\n').length;
    files++;
  };
  write('package.json', PACKAGE_JSON + '\n');
  write('tsconfig.json', TSCONFIG + '\n');
  write('src/shared/core.ts', SHARED);
  const folders = new Map<string, number[]>();
  for (let i = 0; i < modules; i++) {
    write(modulePath(i), moduleSource(i));
    if (options.tests && hasTest(i)) {
      write(testPath(i), testSource(i));
      testFiles++;
    }
    const folder = folderOf(i);
    folders.set(folder, [...(folders.get(folder) ?? []), i]);
  }
  for (const [folder, members] of folders)
    write(`src/${folder}/index.ts`, members.map((i) => `export * from './m${pad(i)}';`).join('\n') + '\n');
  write('src/index.ts', [...folders.keys()].map((f) => `export * as ${f} from './${f}/index';`).join('\n') + '\n');
  symlinkSync(nodeModules, path.join(root, 'node_modules'), 'dir');
  return { root, modules, lines, files, testFiles };
}

/** The modules that import module i directly (what a check of i must re-check besides i). */
export function importersOf(i: number, modules: number): number[] {
  const out: number[] = [];
  for (let j = i + 1; j < Math.min(modules, i + 1 + IMPORT_WINDOW + 1); j++) if (importsOf(j).includes(i)) out.push(j);
  return out;
}
