// The package tier: the .vsix that `npm run package` builds, its files and size. It reads no
// dist/ of its own: the packaging rebuilds dist/ for production just before.
module.exports = {
  require: ['tsx/cjs'],
  spec: ['test/package/**/*.test.ts'],
  timeout: 120000,
  reporter: 'spec',
};
