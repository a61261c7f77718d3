// The tools and runs tiers as one pool of parallel files, as `npm test` runs them: a long runs file
// starts while the tools tier's short files fill the other workers.
module.exports = require('./support/tierConfig.cjs').tierConfig('test/runs', 'test/tools');
