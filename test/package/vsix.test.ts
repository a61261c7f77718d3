import { strict as assert } from 'node:assert';
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { inflateRawSync } from 'node:zlib';

/** Run after `npm run package`: the .vsix holds only what the extension loads, within budget. */
const VSIX = path.join(__dirname, '..', '..', 'ticket-runner.vsix');
// The ticket language server is its own process, as vscode-eslint's server is, but it loads the
// extension's one TypeScript (dist/typescript.js) rather than bundling its own. The users' page and
// the walkthrough show pictures of the product (about 0.5 MB: the README carries its three inline).
const BUDGET_BYTES = 5 * 1024 * 1024;

/** The entries of a zip, from its central directory (a .vsix is a zip): names, sizes and where each one's bytes are. */
function entries(file: string): { name: string; size: number; read: () => Buffer }[] {
  const zip = readFileSync(file);
  let eocd = zip.length - 22;
  while (eocd >= 0 && zip.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, 'the vsix is a zip');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out: { name: string; size: number; read: () => Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(zip.readUInt32LE(at), 0x02014b50, 'a central directory entry');
    const method = zip.readUInt16LE(at + 10);
    const packedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    // The bytes follow the entry's local header, whose name and extra field may differ in length from the directory's.
    const read = () => {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const bytes = zip.subarray(start, start + packedSize);
      return method === 8 ? inflateRawSync(bytes) : Buffer.from(bytes);
    };
    out.push({ name: zip.toString('utf8', at + 46, at + 46 + nameLen), size, read });
    at += 46 + nameLen + extra + comment;
  }
  return out;
}

describe('the packaged .vsix', () => {
  it('holds the bundles, the webview assets, the icon and the ticket schema, and nothing else', () => {
    const names = entries(VSIX).map((e) => e.name);
    console.log(`      ${names.length} files:\n${names.map((n) => `        ${n}`).join('\n')}`);
    for (const needed of [
      'extension/package.json',
      'extension/dist/extension.js',
      'extension/dist/ticketServer.js',
      'extension/dist/typescript.js',
      'extension/dist/webview.js',
      'extension/dist/webview.css',
      'extension/dist/statsView.js',
      'extension/dist/codicons/codicon.css',
      'extension/dist/codicons/codicon.ttf',
      'extension/dist/web-tree-sitter.wasm',
      'extension/dist/tree-sitter-typescript.wasm',
      'extension/dist/nodeTestReporter.mjs',
      'extension/dist/testApisFrozen.cjs',
      'extension/dist/tsxWarm.cjs',
      'extension/dist/expectFrozen.mjs',
      'extension/dist/vendor/modules/fast-check/package.json',
      'extension/dist/vendor/modules/fast-check/index.cjs',
      'extension/dist/vendor/modules/fast-check/fast-check.d.ts',
      'extension/dist/eslintWorker.js',
      'extension/dist/tscServer.js',
      'extension/dist/languageWorker.js',
      'extension/dist/sandboxWorker.js',
      'extension/dist/coverageWorker.js',
      'extension/dist/fingerprintWorker.js',
      'extension/dist/typescript-lib/lib.es2022.d.ts',
      'extension/media/ticketRunner.svg',
      'extension/schemas/ticket.schema.json',
    ]) {
      assert.ok(names.includes(needed), `${needed} is in the package`);
    }
    // The schema the editor completes tickets with is where package.json's jsonValidation and yamlValidation say.
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: Record<string, { url: string }[]>;
    };
    for (const v of [...manifest.contributes.jsonValidation!, ...manifest.contributes.yamlValidation!])
      assert.ok(names.includes(`extension/${v.url.replace(/^\.\//, '')}`), `${v.url} is in the package`);
    // TypeScript's lib.*.d.ts and fast-check's types are the kinds of .ts the bundled language service loads.
    const loaded = (n: string) =>
      n.startsWith('extension/dist/typescript-lib/lib.') ||
      (n.startsWith('extension/dist/vendor/modules/fast-check/') && n.endsWith('.d.ts'));
    const forbidden = names.filter(
      (n) =>
        /(^|\/)(node_modules|test|src|webview-ui|scripts|out|\.vscode-test|\.ticket-runner)\//.test(n) ||
        n.endsWith('.map') ||
        (n.endsWith('.ts') && !loaded(n)),
    );
    assert.deepEqual(forbidden, [], 'no sources, tests, dependencies or source maps');
  });

  it("shows users their page: the README is the Marketplace page with every picture inside it, and the icon and the walkthrough's media are there", () => {
    const all = entries(VSIX);
    const names = all.map((e) => e.name);
    const readmes = all.filter((e) => /^extension\/readme\.md$/i.test(e.name));
    assert.equal(readmes.length, 1, `one README: ${names.filter((n) => /readme/i.test(n)).join(', ')}`);
    const readme = readmes[0]!.read().toString('utf8');
    assert.doesNotMatch(readme, /npm ci/, "not the contributor's README");
    // MARKETPLACE.md, each picture carried in it: VS Code's page of an installed extension resolves no relative picture.
    const root = path.join(__dirname, '..', '..');
    const page = readFileSync(path.join(root, 'MARKETPLACE.md'), 'utf8');
    const pictures = [...page.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(pictures.length > 0);
    const inlined = pictures.reduce(
      (text, p) => text.replace(`](${p})`, `](data:image/png;base64,${readFileSync(path.join(root, p)).toString('base64')})`),
      page,
    );
    assert.equal(readme, inlined, 'the README packed is MARKETPLACE.md with its pictures inlined');
    assert.deepEqual(
      [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((src) => !src.startsWith('data:image/png;base64,')),
      [],
      'every picture is inside',
    );
    const manifest = JSON.parse(
      all
        .find((e) => e.name === 'extension/package.json')!
        .read()
        .toString('utf8'),
    ) as { icon: string; contributes: { walkthroughs: { steps: { media: { markdown?: string; image?: string } }[] }[] } };
    const icon = all.find((e) => e.name === `extension/${manifest.icon}`);
    assert.ok(icon, `the icon ${manifest.icon} is in the package`);
    const png = icon.read();
    assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128, 'the icon is 128 x 128 at least');
    const media = manifest.contributes.walkthroughs.flatMap((w) => w.steps).map((s) => s.media.markdown ?? s.media.image!);
    assert.ok(media.length >= 3, 'a walkthrough');
    for (const m of media) assert.ok(names.includes(`extension/${m}`), `the walkthrough's ${m} is in the package`);
  });

  it('stays within its size budget', () => {
    const size = statSync(VSIX).size;
    console.log(`      ${(size / 1024 / 1024).toFixed(2)} MB (budget ${BUDGET_BYTES / 1024 / 1024} MB)`);
    assert.ok(size < BUDGET_BYTES, `${size} bytes is over the ${BUDGET_BYTES} byte budget`);
  });
});
