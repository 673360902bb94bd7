import { expect } from 'chai';
import { aggregate, type HealthStatus } from '../../../src/domain/health/Health.js';

describe('aggregate (health status of a set of checks)', () => {
  const table: [string, HealthStatus[], HealthStatus][] = [
    ['no checks', [], 'up'],
    ['a single up', ['up'], 'up'],
    ['all up', ['up', 'up', 'up'], 'up'],
    ['a single down', ['down'], 'down'],
    ['all down', ['down', 'down'], 'down'],
    ['up beside down', ['up', 'down'], 'degraded'],
    ['down beside up', ['down', 'up', 'up'], 'degraded'],
    ['a single degraded', ['degraded'], 'degraded'],
    ['degraded beside up', ['up', 'degraded', 'up'], 'degraded'],
    ['degraded beside down', ['down', 'degraded'], 'degraded'],
    ['one of each', ['up', 'down', 'degraded'], 'degraded'],
  ];
  for (const [name, statuses, expected] of table) {
    it(`${name} → ${expected}`, () => {
      expect(aggregate(statuses)).to.equal(expected);
    });
  }
});
