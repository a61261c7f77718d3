// The webview tier: the webview app in headless Chromium against the recorded run logs.
module.exports = {
  require: ['tsx/cjs', './test/support/needsDist.cjs'],
  spec: ['test/webview/**/*.test.ts'],
  timeout: 60000,
  reporter: 'spec',
};
