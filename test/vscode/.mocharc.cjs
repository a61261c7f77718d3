// The vscode tier: the extension in code-server, driven by Chromium. Only this folder's own files:
// suite/ holds the suites that run inside code-server's extension host, which these files start.
// Their order does not matter: each file starts its own code-server on a free port over its own
// copy of the workspace, and bundles what it loads into a file of its own.
module.exports = {
  require: ['tsx/cjs', './test/support/needsDist.cjs'],
  spec: ['test/vscode/*.test.ts'],
  timeout: 420000,
  reporter: 'spec',
};
