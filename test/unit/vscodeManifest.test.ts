import { strict as assert } from 'node:assert';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseTicket } from '../../src/core/ticket/ticketLoader';
import { Command, DEFAULTS, MODEL_READY_CONTEXT, SECTION, SettingKey, VIEW_RUNS, WALKTHROUGH_ID } from '../../src/vscode/settings';

interface WalkthroughStep {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; image?: string; altText?: string };
  completionEvents?: string[];
}

interface Manifest {
  icon?: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string } };
  contributes: {
    commands: { command: string; title: string }[];
    views: Record<string, { id: string }[]>;
    configuration: { properties: Record<string, { default: unknown }> };
    menus: Record<string, { command: string; when?: string }[]>;
    jsonValidation: { fileMatch: string | string[]; url: string }[];
    yamlValidation: { fileMatch: string | string[]; url: string }[];
    viewsWelcome: { view: string; contents: string; when?: string }[];
    walkthroughs: { id: string; title: string; steps: WalkthroughStep[] }[];
  };
}

const ROOT = join(__dirname, '..', '..');
/** The commands a text links to (`command:<id>`). */
const linkedCommands = (text: string) => [...text.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
/** A command the extension contributes, or the focus command VS Code makes for every view. */
const knownCommand = (id: string) =>
  declaredCommand(id) ||
  Object.values(pkg.contributes.views)
    .flat()
    .some((v) => id === `${v.id}.focus`);
/** Whether .vscodeignore packs a file: its last matching line decides, as vsce reads it (plain paths and `**`). */
function packed(file: string): boolean {
  let keep = true;
  for (const line of readFileSync(join(ROOT, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = negated ? line.slice(1) : line;
    const re = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\u0000/g, '.*')}$`,
    );
    if (re.test(file)) keep = negated;
  }
  return keep;
}

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as Manifest;

describe('package.json contributions', () => {
  it('completes and checks tickets against the shipped schema with no $schema in them: JSON, and YAML where an extension reads yamlValidation', () => {
    const root = join(__dirname, '..', '..');
    for (const [list, name] of [
      [pkg.contributes.jsonValidation, 'BLOG-1.ticket.json'],
      [pkg.contributes.yamlValidation, 'BLOG-1.ticket.yaml'],
      [pkg.contributes.yamlValidation, 'BLOG-1.ticket.yml'],
    ] as const) {
      // VS Code matches a pattern with no slash against the file name in any folder.
      const entry = list.find((v) =>
        [v.fileMatch].flat().some((m) => !m.includes('/') && new RegExp(`^${m.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`).test(name)),
      );
      assert.ok(entry, `${name} is matched`);
      assert.equal(entry.url, './schemas/ticket.schema.json');
    }
    const schema = JSON.parse(readFileSync(join(root, 'schemas', 'ticket.schema.json'), 'utf8')) as { title: string };
    assert.equal(schema.title, 'Ticket Runner ticket');
    assert.match(readFileSync(join(root, '.vscodeignore'), 'utf8'), /^!schemas\/ticket\.schema\.json$/m, 'the .vsix keeps the schema');
  });

  it('a sample ticket copied into a fresh project has no $schema that does not resolve there: the contributed schema checks it', () => {
    const samples = join(__dirname, '..', 'fixtures', 'blog-api', '.tickets');
    const names = readdirSync(samples).filter((n) => n.endsWith('.ticket.json'));
    assert.ok(names.length > 0);
    const project = mkdtempSync(join(tmpdir(), 'tr-sample-'));
    try {
      mkdirSync(join(project, '.tickets'));
      for (const name of names) {
        const copy = join(project, '.tickets', name);
        copyFileSync(join(samples, name), copy);
        const { $schema } = JSON.parse(readFileSync(copy, 'utf8')) as { $schema?: string };
        // VS Code takes a ticket's own $schema over the contributed one, resolved against the
        // ticket's folder, and warns on every ticket when it is not there.
        if ($schema === undefined) continue;
        const resolved = new URL($schema, pathToFileURL(copy));
        assert.ok(
          resolved.protocol === 'file:' && existsSync(fileURLToPath(resolved)),
          `${name}: "$schema": "${$schema}" does not resolve in a copy of the sample`,
        );
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('declares exactly the setting keys of src/vscode/settings.ts, with the same defaults', () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    const inCode = Object.values(SettingKey)
      .map((k) => `${SECTION}.${k}`)
      .sort();
    assert.deepEqual(declared, inCode);
    for (const [name, key] of Object.entries(SettingKey)) {
      assert.deepEqual(
        pkg.contributes.configuration.properties[`${SECTION}.${key}`]!.default,
        DEFAULTS[name as keyof typeof DEFAULTS],
        key,
      );
    }
  });

  it('contributes every command the code registers, and "Run Ticket" under its palette name', () => {
    const declared = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(declared, Object.values(Command).sort());
    const run = pkg.contributes.commands.find((c) => c.command === Command.runTicket) as { title: string; category: string } | undefined;
    assert.equal(`${run?.category}: ${run?.title}`, 'Ticket Runner: Run Ticket');
  });

  it('has the runs view, the ticket context menu, limited trust and on-demand activation', () => {
    assert.ok(
      Object.values(pkg.contributes.views)
        .flat()
        .some((v) => v.id === VIEW_RUNS),
    );
    const explorer = pkg.contributes.menus['explorer/context'] ?? [];
    assert.ok(
      explorer.some((m) => m.command === Command.runTicket && m.when?.includes('\\.ticket\\.(json|ya?ml)$')),
      'JSON and YAML tickets',
    );
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(pkg.activationEvents.includes('workspaceContains:.tickets'));
    assert.ok(!pkg.activationEvents.includes('*'), 'no eager activation');
    for (const m of Object.values(pkg.contributes.menus).flat()) {
      assert.ok(declaredCommand(m.command), `menu entry for an undeclared command ${m.command}`);
    }
  });
});

describe('the way in for a new user', () => {
  const walkthrough = pkg.contributes.walkthroughs.find((w) => w.id === WALKTHROUGH_ID);

  it('a walkthrough of four steps: choose a model (the three ways), open or write a ticket, run it, read the verdict', () => {
    assert.ok(walkthrough, `walkthrough ${WALKTHROUGH_ID}`);
    assert.deepEqual(
      walkthrough.steps.map((s) => s.title),
      ['Choose a model', 'Open or write a ticket', 'Run it', 'Read the verdict'],
    );
    assert.deepEqual(linkedCommands(walkthrough.steps[0]!.description), [
      Command.setApiKey,
      Command.useEditorModel,
      Command.tryRecordedSample,
    ]);
    assert.ok(
      walkthrough.steps[0]!.completionEvents?.includes(`onContext:${MODEL_READY_CONTEXT}`),
      'the model step is done once a model can run',
    );
    for (const step of walkthrough.steps) {
      for (const id of linkedCommands(step.description)) assert.ok(knownCommand(id), `${step.id} links to ${id}, which exists`);
      const media = step.media.markdown ?? step.media.image;
      assert.ok(media && existsSync(join(ROOT, media)), `${step.id}: its media ${media} exists`);
      assert.ok(packed(media), `${step.id}: its media ${media} is in the .vsix`);
      if (step.media.image) assert.ok(step.media.altText, `${step.id}: its picture has words`);
    }
  });

  it("the walkthrough's ticket is a ticket a run accepts", () => {
    const text = readFileSync(join(ROOT, 'media', 'walkthrough', 'ticket.md'), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(text)?.[1];
    assert.ok(yaml, 'a YAML ticket');
    assert.equal(parseTicket('.tickets/BLOG-1.ticket.yaml', yaml).id, 'BLOG-1');
  });

  it('the empty runs view says a run needs a model and links each way in until one can run; then Run Ticket and New Ticket', () => {
    const welcome = pkg.contributes.viewsWelcome.filter((w) => w.view === VIEW_RUNS);
    const shown = (ready: boolean) =>
      welcome.filter((w) => w.when === undefined || w.when === (ready ? MODEL_READY_CONTEXT : `!${MODEL_READY_CONTEXT}`));
    assert.equal(
      shown(true).length + shown(false).length,
      welcome.length * 2 - welcome.filter((w) => w.when).length,
      'every entry is shown by the model context key or always',
    );
    const without = shown(false)
      .map((w) => w.contents)
      .join('\n');
    assert.match(without, /A run needs a model/);
    assert.deepEqual(linkedCommands(without), [Command.setApiKey, Command.useEditorModel, Command.tryRecordedSample, Command.getStarted]);
    assert.deepEqual(
      linkedCommands(
        shown(true)
          .map((w) => w.contents)
          .join('\n'),
      ),
      [Command.runTicket, Command.newTicket, Command.getStarted],
    );
  });

  it('an icon of its own: a PNG of at least 128 x 128 pixels, in the .vsix', () => {
    assert.equal(pkg.icon, 'media/icon.png');
    const png = readFileSync(join(ROOT, pkg.icon));
    assert.equal(png.toString('latin1', 1, 4), 'PNG');
    assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128, `${png.readUInt32BE(16)} x ${png.readUInt32BE(20)}`);
    assert.ok(packed(pkg.icon));
  });

  it("the Marketplace page is the user's README: packed as the README with its pictures inlined, and no link to a page the .vsix lacks", () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.match(scripts.package!, /node scripts\/marketplaceReadme\.mjs && vsce package .*--readme-path out\/marketplace\/README\.md/);
    const page = readFileSync(join(ROOT, 'MARKETPLACE.md'), 'utf8');
    const pictures = [...page.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    assert.ok(pictures.length >= 2, 'pictures of the product');
    for (const p of pictures) assert.match(p, /\.png$/, `${p}: a picture the script can inline`);
    // The extension's page resolves no relative link against the extension: a link to another page would be dead.
    const links = [...page.matchAll(/[^!]\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^([a-z]+:|#)/i.test(l));
    assert.deepEqual(links, []);
    assert.doesNotMatch(page, /npm ci|npm run/, 'no contributor set-up');
  });
});

function declaredCommand(id: string): boolean {
  return pkg.contributes.commands.some((c) => c.command === id);
}
