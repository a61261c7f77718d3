// Writes the .vsix's README (out/marketplace/README.md, which the package script packs with
// --readme-path): MARKETPLACE.md, the users' page, with each of its pictures inlined as a data: URI.
// VS Code's page of an installed extension does not resolve a relative picture against the
// extension's folder, so a picture it is to show must travel in the README itself.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const TYPES = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif' };

const page = readFileSync(join(root, 'MARKETPLACE.md'), 'utf8').replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (all, alt, src) => {
  if (/^[a-z]+:/i.test(src)) return all;
  const type = TYPES[extname(src).toLowerCase()];
  // An SVG data URI is refused by the Marketplace; any other kind is not a picture it shows.
  if (!type) throw new Error(`MARKETPLACE.md: ${src} is not a PNG, JPEG or GIF picture`);
  return `![${alt}](data:${type};base64,${readFileSync(join(root, src)).toString('base64')})`;
});
const out = join(root, 'out', 'marketplace', 'README.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, page);
