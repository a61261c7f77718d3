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
  };
}

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as Manifest;

describe('package.json contributions', () => {
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
    assert.ok(explorer.some((m) => m.command === Command.runTicket && m.when?.includes('\\.ticket\\.json$')));
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
