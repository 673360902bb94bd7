import { expect } from 'chai';
import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimiterLoginThrottle } from '../../../../src/adapters/outbound/throttle/RateLimiterLoginThrottle.js';

const WINDOW_SECONDS = 2;

/** 3 attempts without a success allowed per 2-second window. */
const newThrottle = (): RateLimiterLoginThrottle =>
  new RateLimiterLoginThrottle(new RateLimiterMemory({ points: 3, duration: WINDOW_SECONDS }));

const KEY = 'ada@example.com|203.0.113.7';

describe('RateLimiterLoginThrottle', () => {
  let throttle: RateLimiterLoginThrottle;
  beforeEach(() => {
    throttle = newThrottle();
  });

  it('lets the first three attempts go ahead, then refuses for the rest of the window', async () => {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      expect(await throttle.attempt(KEY), `attempt ${attempt}`).to.equal(undefined);
    }
    const seconds = await throttle.attempt(KEY);
    expect(seconds).to.be.a('number');
    expect(seconds).to.be.within(1, WINDOW_SECONDS);
    expect(Number.isInteger(seconds)).to.equal(true);
    expect(await throttle.attempt(KEY)).to.be.within(1, WINDOW_SECONDS);
  });

  it('counts concurrent attempts atomically: of ten at once exactly three go ahead', async () => {
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => throttle.attempt(KEY)));
    expect(outcomes.filter((o) => o === undefined)).to.have.length(3);
  });

  it('starts counting from zero after reset (a successful login)', async () => {
    for (let i = 0; i < 3; i += 1) await throttle.attempt(KEY);
    await throttle.reset(KEY);
    for (let attempt = 1; attempt <= 3; attempt += 1) expect(await throttle.attempt(KEY)).to.equal(undefined);
    expect(await throttle.attempt(KEY)).to.be.a('number');
  });

  it('counts every key on its own', async () => {
    const other = 'ada@example.com|198.51.100.9';
    for (let i = 0; i < 3; i += 1) await throttle.attempt(KEY);
    expect(await throttle.attempt(other)).to.equal(undefined);
    expect(await throttle.attempt(KEY)).to.be.a('number');
  });

  it('lets attempts through again once the window has passed', async function () {
    this.timeout(5_000);
    for (let i = 0; i < 4; i += 1) await throttle.attempt(KEY);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000 + 100));
    expect(await throttle.attempt(KEY)).to.equal(undefined);
  });

  it('fails open when the store is unavailable', async () => {
    const broken = { consume: () => Promise.reject(new Error('redis down')), delete: () => Promise.reject(new Error('redis down')) };
    const open = new RateLimiterLoginThrottle(broken as unknown as RateLimiterAbstract);
    expect(await open.attempt(KEY)).to.equal(undefined);
    await open.reset(KEY);
  });
});
