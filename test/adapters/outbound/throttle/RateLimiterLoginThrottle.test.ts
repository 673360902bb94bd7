import { expect } from 'chai';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimiterLoginThrottle } from '../../../../src/adapters/outbound/throttle/RateLimiterLoginThrottle.js';

const WINDOW_SECONDS = 2;

/** 3 failures allowed per 2-second window. */
const newThrottle = (): RateLimiterLoginThrottle =>
  new RateLimiterLoginThrottle(new RateLimiterMemory({ points: 3, duration: WINDOW_SECONDS }));

const KEY = 'ada@example.com|203.0.113.7';
const open = (remaining: number) => ({ blockedForSeconds: undefined, remaining });

describe('RateLimiterLoginThrottle', () => {
  let throttle: RateLimiterLoginThrottle;
  beforeEach(() => {
    throttle = newThrottle();
  });

  it('is open with the whole budget for a key it has never seen', async () => {
    expect(await throttle.status(KEY)).to.deep.equal(open(3));
  });

  it('counts failures down, then blocks for the rest of the window', async () => {
    await throttle.recordFailure(KEY);
    expect(await throttle.status(KEY)).to.deep.equal(open(2));
    await throttle.recordFailure(KEY);
    expect(await throttle.status(KEY)).to.deep.equal(open(1));
    await throttle.recordFailure(KEY);
    const status = await throttle.status(KEY);
    expect(status.remaining).to.equal(0);
    expect(status.blockedForSeconds).to.be.within(1, WINDOW_SECONDS);
    expect(Number.isInteger(status.blockedForSeconds)).to.equal(true);
  });

  it('forgets the failures on reset (a successful login)', async () => {
    for (let i = 0; i < 3; i += 1) await throttle.recordFailure(KEY);
    await throttle.reset(KEY);
    expect(await throttle.status(KEY)).to.deep.equal(open(3));
  });

  it('counts every key on its own', async () => {
    const other = 'ada@example.com|198.51.100.9';
    for (let i = 0; i < 3; i += 1) await throttle.recordFailure(KEY);
    await throttle.recordFailure(other);
    expect((await throttle.status(KEY)).blockedForSeconds).to.be.a('number');
    expect(await throttle.status(other)).to.deep.equal(open(2));
  });

  it('opens again once the window has passed', async function () {
    this.timeout(5_000);
    for (let i = 0; i < 3; i += 1) await throttle.recordFailure(KEY);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000 + 100));
    expect(await throttle.status(KEY)).to.deep.equal(open(3));
  });

  it('fails open when the store is unavailable', async () => {
    const down = () => Promise.reject(new Error('redis down'));
    const broken = new RateLimiterLoginThrottle({
      points: 3,
      get: down,
      penalty: down,
      delete: down,
    } as unknown as RateLimiterAbstract);
    expect(await broken.status(KEY)).to.deep.equal(open(3));
    await broken.recordFailure(KEY);
    await broken.reset(KEY);
  });
});
