import type { Lifecycle } from '../../application/health/CheckHealth.js';

/** The service's one shutdown flag, flipped when SIGTERM/SIGINT arrives. */
export class ProcessLifecycle implements Lifecycle {
  private shuttingDown = false;

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  beginShutdown(): void {
    this.shuttingDown = true;
  }
}
