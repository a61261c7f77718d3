// The tools tier: each adapter against its real tool (TypeScript, Tree-sitter, ESLint, the sandbox, each runner on a small project). Its files run in
// parallel (each its own workspace): they wait on child processes most of the time, so more
// jobs than cores pay. TEST_JOBS sets how many.
module.exports = {
  require: ['tsx/cjs', './test/support/needsDist.cjs'],
  spec: ['test/tools/**/*.test.ts'],
  timeout: 180000,
  reporter: 'dot',
  parallel: true,
  jobs: Number(process.env.TEST_JOBS || 3),
};
