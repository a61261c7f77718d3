import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UserInputError } from '../../core/errors';
import { RoutingCase } from '../../core/schema/routingCase';
import { sha256 } from '../store/fileRunStore';

/*
 * The routing corpus on disk: `cases/<id>.json`, one case each, whose file contents are
 * `{ "path", "blob" }` references into `blobs/<hash>.txt`. Cases captured from one ticket
 * share most of their files, and variants share all of theirs: each content is kept once.
 */

interface StoredFile {
  path: string;
  blob: string;
}
type Content = { path: string; content: string };

const BLOB_ID = /^[0-9a-f]{16}$/;

/** The case fields that hold files, as [top-level key, nested key] paths. */
function mapFiles(c: Record<string, unknown>, f: (file: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> {
  const inputs = c.inputs as Record<string, unknown> | undefined;
  if (!inputs || typeof inputs !== 'object') return c;
  const list = (v: unknown) =>
    Array.isArray(v) ? v.map((x: unknown) => (x && typeof x === 'object' ? f(x as Record<string, unknown>) : x)) : v;
  const history = Array.isArray(inputs.history)
    ? inputs.history.map((h: unknown) =>
        h && typeof h === 'object' ? { ...(h as Record<string, unknown>), files: list((h as Record<string, unknown>).files) } : h,
      )
    : inputs.history;
  return {
    ...c,
    inputs: {
      ...inputs,
      testFiles: list(inputs.testFiles),
      pristine: list(inputs.pristine),
      implementation: list(inputs.implementation),
      history,
    },
  };
}

/** Reads every case of a corpus folder, with its blobs resolved, validated; one clear line for what is wrong. */
export function loadCorpus(dir: string): RoutingCase[] {
  const casesDir = path.join(dir, 'cases');
  if (!existsSync(casesDir))
    throw new UserInputError(
      `${dir} is not a routing corpus: it has no cases/ folder (pass --corpus with the folder that holds cases/ and blobs/)`,
    );
  const files = readdirSync(casesDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  if (!files.length) throw new UserInputError(`${casesDir} holds no case (*.json)`);
  return files.map((name) => {
    const file = path.join(casesDir, name);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new UserInputError(`${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const resolved = mapFiles(raw as Record<string, unknown>, (f) => {
      if (typeof f.blob !== 'string' || !BLOB_ID.test(f.blob)) return f;
      const blob = path.join(dir, 'blobs', `${f.blob}.txt`);
      if (!existsSync(blob))
        throw new UserInputError(`${file}: ${String(f.path)} names blob ${f.blob}, which is not in ${path.join(dir, 'blobs')}`);
      return { path: f.path, content: readFileSync(blob, 'utf8') };
    });
    const parsed = RoutingCase.safeParse(resolved);
    if (!parsed.success)
      throw new UserInputError(
        `${file} is not a valid routing case: ${parsed.error.issues
          .slice(0, 3)
          .map((i) => `$.${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
      );
    if (`${parsed.data.id}.json` !== name)
      throw new UserInputError(`${file} holds case "${parsed.data.id}": name the file ${parsed.data.id}.json`);
    return parsed.data;
  });
}

/** Writes a case, its file contents into the shared blobs. */
export function writeCase(dir: string, c: RoutingCase): void {
  const checked = RoutingCase.parse(c);
  mkdirSync(path.join(dir, 'cases'), { recursive: true });
  mkdirSync(path.join(dir, 'blobs'), { recursive: true });
  const stored = mapFiles(checked, (f) => {
    const { path: p, content } = f as unknown as Content;
    const blob = sha256(content).slice(0, 16);
    const file = path.join(dir, 'blobs', `${blob}.txt`);
    if (!existsSync(file)) writeFileSync(file, content);
    return { path: p, blob } satisfies StoredFile;
  });
  writeFileSync(path.join(dir, 'cases', `${c.id}.json`), JSON.stringify(stored, null, 1) + '\n');
}
