import { expect } from 'chai';
import { LoopPressure } from '../../../../../src/adapters/inbound/http/runtime/index.js';

const busy = (maxDelayMs: number) => ({ maxDelayMs, utilization: 1 });

describe('LoopPressure: when the event loop counts as overloaded (hysteresis)', () => {
  it('a single slow window — a burst the loop absorbs — never turns it on', () => {
    const pressure = new LoopPressure(500);
    for (const delay of [20, 900, 30, 800, 10, 400, 100]) {
      pressure.observe(busy(delay));
      expect(pressure.overloaded, `after a window of ${delay} ms`).to.equal(false);
    }
  });

  it('turns on after two busy windows in a row above the bound', () => {
    const pressure = new LoopPressure(500);
    pressure.observe(busy(600));
    expect(pressure.overloaded).to.equal(false);
    pressure.observe(busy(700));
    expect(pressure.overloaded).to.equal(true);
  });

  it('turns on after a second of busy windows above half the bound: turns that long starve new connections', () => {
    const pressure = new LoopPressure(500);
    for (let i = 0; i < 6; i += 1) pressure.observe(busy(240));
    expect(pressure.overloaded, 'under half the bound').to.equal(false);
    for (let i = 0; i < 3; i += 1) {
      pressure.observe(busy(300));
      expect(pressure.overloaded, `after ${i + 1} windows`).to.equal(false);
    }
    pressure.observe(busy(320));
    expect(pressure.overloaded).to.equal(true);
  });

  it('a loop blocked once by a call, otherwise idle, is not load', () => {
    const pressure = new LoopPressure(500);
    pressure.observe({ maxDelayMs: 800, utilization: 0.5 });
    pressure.observe({ maxDelayMs: 800, utilization: 0.4 });
    expect(pressure.overloaded).to.equal(false);
  });

  it('stays on until a window is under a quarter of the bound, so it does not flap at the bound', () => {
    const pressure = new LoopPressure(500);
    pressure.observe(busy(600));
    pressure.observe(busy(600));
    pressure.observe(busy(400));
    expect(pressure.overloaded, 'under the bound').to.equal(true);
    pressure.observe(busy(130));
    expect(pressure.overloaded, 'just above a quarter of it').to.equal(true);
    pressure.observe(busy(120));
    expect(pressure.overloaded).to.equal(false);
  });
});
