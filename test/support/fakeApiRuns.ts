import assert from 'node:assert/strict';
import { AnthropicProvider } from '../../src/node/models/anthropic';
import { FakeAnthropic } from './fakeAnthropic';
import { copyFixture } from './tempWorkspace';

/**
 * A suite's fake Messages API and a fresh blog-api copy per test: the server starts once, each
 * test's unserved replies fail it, and `provider()` is the real SDK pointed at the fake.
 */
export function fakeApiRuns(apiKey: string): {
  readonly fake: FakeAnthropic;
  readonly ws: ReturnType<typeof copyFixture>;
  provider(): AnthropicProvider;
} {
  const shared = {} as { fake: FakeAnthropic; ws: ReturnType<typeof copyFixture> };
  before(async () => {
    shared.fake = await FakeAnthropic.start();
  });
  after(async () => {
    await shared.fake.close();
  });
  beforeEach(() => {
    shared.ws = copyFixture();
  });
  afterEach(function () {
    const leftover = shared.fake.pending;
    shared.fake.reset();
    shared.ws.dispose();
    if (this.currentTest?.state === 'passed') assert.equal(leftover, 0, 'scripted replies were left unserved');
  });
  return {
    get fake() {
      return shared.fake;
    },
    get ws() {
      return shared.ws;
    },
    provider: () => new AnthropicProvider({ apiKey, baseURL: shared.fake.baseURL }),
  };
}

/** Points the CLI's Anthropic provider at `baseURL` with `apiKey`; the returned function puts the environment back. */
export function anthropicEnv(apiKey: string | undefined, baseURL: string | undefined): () => void {
  const saved = { key: process.env['ANTHROPIC_API_KEY'], url: process.env['ANTHROPIC_BASE_URL'] };
  const set = (name: string, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  set('ANTHROPIC_API_KEY', apiKey);
  set('ANTHROPIC_BASE_URL', baseURL);
  return () => {
    set('ANTHROPIC_API_KEY', saved.key);
    set('ANTHROPIC_BASE_URL', saved.url);
  };
}
