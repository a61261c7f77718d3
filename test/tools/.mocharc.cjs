// The tools tier: each adapter against its real tool (TypeScript, Tree-sitter, ESLint, the sandbox, each runner on a small project).
module.exports = require('../support/tierConfig.cjs').tierConfig('test/tools');
