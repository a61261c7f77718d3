// The pure tier: every test file under test/unit, with the guard that fails a test starting a
// process or a worker loaded first.
module.exports = {
  require: ['tsx/cjs', './test/support/startsNothing.cjs'],
  spec: ['test/unit/**/*.test.ts'],
  timeout: 60000,
  reporter: 'dot',
};
