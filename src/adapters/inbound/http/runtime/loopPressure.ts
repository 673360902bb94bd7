/** One closed window of an event-loop monitor, as the shedding reads it. */
export interface LoopWindow {
  /** The worst event-loop delay seen in the window (ms). */
  maxDelayMs: number;
  /** The share of the window the loop spent running callbacks (0 to 1). */
  utilization: number;
}

/** A window counts only when the loop was this busy in it: a lone blocking call is not load. */
const BUSY_UTILIZATION = 0.9;

/**
 * Whether the event loop is overloaded, with hysteresis, from the closed windows of the event-loop
 * monitor (its delay and utilisation, both public Node figures). It turns on when, with the loop
 * busy,
 * - two windows in a row each saw a delay above the bound (`server.max_event_loop_delay`), or
 * - `saturatedWindows` windows in a row (a second with the default windows) each saw a delay above
 *   half the bound: a saturated loop whose turns are that long makes new connections wait
 *   many turns to be accepted (Node accepts one per turn), so what a new client waits passes the
 *   bound although each turn is under it;
 * and it turns off once a window's worst delay is under a quarter of the bound. A burst the loop
 * absorbs within a window or two never trips it. See docs/adr/0015-load-shedding.md.
 */
export class LoopPressure {
  private overBound = 0;
  private saturated = 0;
  private on = false;

  constructor(
    private readonly boundMs: number,
    private readonly saturatedWindows = 4,
  ) {}

  /** Takes one closed window of the monitor. */
  observe(window: LoopWindow): void {
    const busy = window.utilization >= BUSY_UTILIZATION;
    this.overBound = busy && window.maxDelayMs > this.boundMs ? this.overBound + 1 : 0;
    this.saturated = busy && window.maxDelayMs > this.boundMs / 2 ? this.saturated + 1 : 0;
    if (!this.on) this.on = this.overBound >= 2 || this.saturated >= this.saturatedWindows;
    else if (window.maxDelayMs < this.boundMs / 4) this.on = false;
  }

  /** True while new requests should be refused for the loop's sake. */
  get overloaded(): boolean {
    return this.on;
  }
}
