// The runs tier: whole runs on the fixture projects, through the pipeline and the CLI.
module.exports = require('../support/tierConfig.cjs').tierConfig('test/runs');
