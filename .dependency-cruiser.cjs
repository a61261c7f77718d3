// The fences between the layers, checked by `npm run lint` (depcruise). The per-layer tsconfigs
// fence the types each layer may see; these rules fence what each layer may import.
const { builtinModules } = require('node:module');

// With and without `node:`; `fs/promises` and the like included.
// `vscode` resolves to its types package (the editor provides the module at run time).
const vscodeModule = '^(vscode$|node_modules/@types/vscode/)';

const builtins = `^(node:)?(${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`;

// The core's layers, bottom first: each may import only the layers before it (and itself).
const coreLayers = [
  ['schema', '^src/core/(errors\\.ts|schema/)'],
  ['ports', '^src/core/ports/'],
  ['run', '^src/core/run/'],
  ['recovery', '^src/core/recovery/'],
  ['ticket', '^src/core/ticket/'],
  ['plan', '^src/core/plan/'],
  ['stages', '^src/core/stages/'],
  ['loop', '^src/core/(loop/|index\\.ts)'],
  ['eval', '^src/core/eval/'],
];

// The stage folders, bottom first, as a run meets them; what two stages share sits in common/.
const stageFolders = [
  'common',
  'materializer',
  'manifest',
  'proposals',
  'ops',
  'checks',
  'coder',
  'debugger',
  'gates',
  'router',
  'authoring',
].map((name) => [name, `^src/core/stages/${name}/`]);

/** One rule per floor but the top: a floor imports none of the floors above it. */
const importsDown = (floors, kind, where) =>
  floors.slice(0, -1).map(([name, path], i) => ({
    name: `${kind}-${name}-imports-down`,
    comment: `${where}${name} sits below ${floors
      .slice(i + 1)
      .map(([n]) => n)
      .join(', ')}: imports point down only (CONTRIBUTING.md, "Layout").`,
    severity: 'error',
    from: { path },
    to: { path: floors.slice(i + 1).map(([, p]) => p) },
  }));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: split the shared part into a module both import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'node-no-folder-cycles',
      comment:
        'Two folders of src/node that import each other are one concern split in two: move the shared part into one of them, or below both.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/node/' },
      to: { path: '^src/node/', circular: true },
    },
    {
      name: 'core-not-to-node-builtins',
      comment: 'src/core is pure TypeScript: it reaches files, processes and the clock through src/core/ports.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: builtins },
    },
    {
      name: 'core-not-to-builtin-types',
      comment: 'src/core is pure TypeScript: it reaches files, processes and the clock through src/core/ports.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-not-to-outer-layers',
      comment: 'src/core knows only its ports: adapters live in src/node, src/vscode and src/cli.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: ['^src/(node|vscode|cli|shared|lsp)/', '^webview-ui/', vscodeModule] },
    },
    {
      name: 'shared-is-environment-free',
      comment: "src/shared is the webview protocol: zod, the core's schemas and projections, and nothing of a host.",
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { pathNot: ['^src/shared/', '^src/core/(errors\\.ts|schema/|run/)', 'zod'] },
    },
    {
      name: 'webview-only-to-shared',
      comment: 'The webview runs in a browser and talks to the host through src/shared messages.',
      severity: 'error',
      from: { path: '^webview-ui/' },
      to: { path: ['^src/(?!shared/)', builtins, vscodeModule] },
    },
    {
      name: 'node-and-cli-not-to-vscode',
      comment: 'The Node adapters and the CLI run outside the editor.',
      severity: 'error',
      from: { path: '^src/(node|cli)/' },
      to: { path: ['^src/vscode/', '^webview-ui/', vscodeModule] },
    },
    {
      name: 'node-not-to-cli',
      comment: 'The CLI wires the Node adapters, not the other way round.',
      severity: 'error',
      from: { path: '^src/node/' },
      to: { path: ['^src/cli/', '^src/lsp/'] },
    },
    {
      name: 'lsp-not-to-vscode',
      comment:
        "The ticket language server serves any editor over LSP: it never imports vscode, the extension or the CLI (vscode-eslint's fence).",
      severity: 'error',
      from: { path: '^src/lsp/' },
      to: { path: ['^src/(vscode|cli|shared)/', '^webview-ui/', vscodeModule, 'node_modules/vscode-languageclient/'] },
    },
    {
      name: 'client-not-to-server',
      comment:
        'The editor talks to the ticket language server over LSP only: of src/lsp it may import the request names (protocol.ts), nothing that runs.',
      severity: 'error',
      from: { path: '^src/vscode/' },
      to: { path: '^src/lsp/(?!protocol\\.ts$)' },
    },
    {
      name: 'stages-in-their-folders',
      comment:
        'Every stage is a folder of src/core/stages with its place in the order (stageFolders): a loose file or a new folder has none.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/core/stages/', pathNot: stageFolders.map(([, p]) => p) },
    },
    ...importsDown(coreLayers, 'core', 'src/core/'),
    ...importsDown(stageFolders, 'stages', 'src/core/stages/'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|out|test/fixtures)/' },
    // Type-only imports are dependencies too: a core file must not even name a node type.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
