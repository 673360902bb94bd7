import { Redis } from 'ioredis';
import { RedisWritePositions } from '../../../../src/adapters/outbound/cache/RedisWritePositions.js';
import { InMemoryWritePositions } from '../../../../src/adapters/outbound/memory/InMemoryWritePositions.js';
import { externalService } from '../../../support/env.js';
import { writePositionsContract } from '../contracts/writePositions.contract.js';

describe('write positions in memory', () => {
  writePositionsContract(() => {
    let now = 1_000;
    return {
      positions: new InMemoryWritePositions(() => now),
      pass: (ms) => {
        now += ms;
        return Promise.resolve();
      },
    };
  });
});

describe('write positions in Redis', function () {
  const url = externalService('SVC_TEST_REDIS_URL');
  let redis: Redis;
  before(function () {
    if (!url) {
      console.log('      (skipped: needs SVC_TEST_REDIS_URL)');
      this.skip();
    }
    redis = new Redis(url!);
  });
  after(() => redis?.disconnect());

  writePositionsContract(() => ({
    positions: new RedisWritePositions(redis),
    pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }));
});
