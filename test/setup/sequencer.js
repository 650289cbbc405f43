// The files that take minutes start first, so neither jest worker ends the run alone with one of
// them. Jest's own order (slowest first by the durations it cached, else the largest file first)
// knows nothing on a clean clone, and these files are small: they drive the service for minutes.
const Sequencer = require('@jest/test-sequencer').default;

/** From the longest: the property suite, the outage and crash tests, the browser tests. */
const LONG_FIRST = [/test\/property\/stateful\.test\.ts$/, /test\/resilience\/temporal-outage-load\.test\.ts$/, /test\/resilience\//, /test\/browser\//, /test\/property\//];

const rank = (test) => {
  const index = LONG_FIRST.findIndex((pattern) => pattern.test(test.path.split('\\').join('/')));
  return index === -1 ? LONG_FIRST.length : index;
};

class LongFirstSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    // Array.prototype.sort is stable: within a rank, jest's own order stays.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = LongFirstSequencer;
