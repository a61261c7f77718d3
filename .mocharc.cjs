// `npx mocha` with no arguments runs the pure tier, the one that needs no build.
module.exports = require('./test/unit/.mocharc.cjs');
