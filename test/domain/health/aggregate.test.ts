import { expect } from 'chai';
import { aggregate, aggregateWeighed, type HealthStatus } from '../../../src/domain/health/Health.js';

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

describe('aggregateWeighed (criticality, README: Health)', () => {
  const up = (critical: boolean) => ({ status: 'up' as const, critical });
  const down = (critical: boolean) => ({ status: 'down' as const, critical });
  const degraded = (critical: boolean) => ({ status: 'degraded' as const, critical });
  const table: [string, { status: HealthStatus; critical: boolean }[], HealthStatus][] = [
    ['no checks', [], 'up'],
    ['all up', [up(true), up(false)], 'up'],
    ['a critical down beside ups', [down(true), up(false), up(false)], 'down'],
    ['a critical down beside a degraded', [down(true), degraded(false)], 'down'],
    ['a non-critical down beside a critical up', [up(true), down(false)], 'degraded'],
    ['a critical degraded beside ups', [degraded(true), up(false)], 'degraded'],
    ['everything down, none critical', [down(false), down(false)], 'down'],
  ];
  for (const [name, checks, expected] of table) {
    it(`${name} → ${expected}`, () => {
      expect(aggregateWeighed(checks)).to.equal(expected);
    });
  }
});
