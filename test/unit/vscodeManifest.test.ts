import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, DEFAULTS, SECTION, SettingKey, VIEW_RUNS } from '../../src/vscode/settings';

interface Manifest {
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string } };
  contributes: {
    commands: { command: string; title: string }[];
    views: Record<string, { id: string }[]>;
    configuration: { properties: Record<string, { default: unknown }> };
    menus: Record<string, { command: string; when?: string }[]>;
    jsonValidation: { fileMatch: string | string[]; url: string }[];
    yamlValidation: { fileMatch: string | string[]; url: string }[];
  };
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
      const entry = list.find((v) => [v.fileMatch].flat().some((m) => !m.includes('/') && new RegExp(`^${m.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`).test(name)));
      assert.ok(entry, `${name} is matched`);
      assert.equal(entry.url, './schemas/ticket.schema.json');
    }
    const schema = JSON.parse(readFileSync(join(root, 'schemas', 'ticket.schema.json'), 'utf8')) as { title: string };
    assert.equal(schema.title, 'Ticket Runner ticket');
    assert.match(readFileSync(join(root, '.vscodeignore'), 'utf8'), /^!schemas\/ticket\.schema\.json$/m, 'the .vsix keeps the schema');
  });

  it('declares exactly the setting keys of src/vscode/settings.ts, with the same defaults', () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    const inCode = Object.values(SettingKey).map((k) => `${SECTION}.${k}`).sort();
    assert.deepEqual(declared, inCode);
    for (const [name, key] of Object.entries(SettingKey)) {
      assert.deepEqual(pkg.contributes.configuration.properties[`${SECTION}.${key}`]!.default, DEFAULTS[name as keyof typeof DEFAULTS], key);
    }
  });

  it('contributes every command the code registers, and "Run Ticket" under its palette name', () => {
    const declared = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(declared, Object.values(Command).sort());
    const run = pkg.contributes.commands.find((c) => c.command === Command.runTicket) as { title: string; category: string } | undefined;
    assert.equal(`${run?.category}: ${run?.title}`, 'Ticket Runner: Run Ticket');
  });

  it('has the runs view, the ticket context menu, limited trust and on-demand activation', () => {
    assert.ok(Object.values(pkg.contributes.views).flat().some((v) => v.id === VIEW_RUNS));
    const explorer = pkg.contributes.menus['explorer/context'] ?? [];
    assert.ok(explorer.some((m) => m.command === Command.runTicket && m.when?.includes('\\.ticket\\.(json|ya?ml)$')), 'JSON and YAML tickets');
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(pkg.activationEvents.includes('workspaceContains:.tickets'));
    assert.ok(!pkg.activationEvents.includes('*'), 'no eager activation');
    for (const m of Object.values(pkg.contributes.menus).flat()) {
      assert.ok(declaredCommand(m.command), `menu entry for an undeclared command ${m.command}`);
    }
  });
});

function declaredCommand(id: string): boolean {
  return pkg.contributes.commands.some((c) => c.command === id);
}
