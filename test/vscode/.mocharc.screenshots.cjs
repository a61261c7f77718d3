// `npm run screenshots`: of the vscode tier, only these take pictures for the docs.
module.exports = { ...require('./.mocharc.cjs'), spec: ['test/vscode/e2e.test.ts', 'test/vscode/testCodeLens.test.ts'] };
