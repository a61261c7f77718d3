// `npm run screenshots`: of the vscode tier, only e2e.test.ts takes a picture for the README.
module.exports = { ...require('./.mocharc.cjs'), spec: ['test/vscode/e2e.test.ts'] };
