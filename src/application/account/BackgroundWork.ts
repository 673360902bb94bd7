/**
 * Work a use case starts but does not wait for (an e-mail after the answer is decided), tracked so
 * that failures are reported rather than lost and shutdown (or a test) can wait for it all.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  /** `report` is told of every failure, with what was being done; it must not throw. */
  constructor(private readonly report: (what: string, error: unknown) => void) {}

  /**
   * Starts `task` once the work already queued has run (the next turn of the event loop), so none
   * of it — not even its first synchronous step — delays the caller's answer; its failure goes to
   * the reporter, never to the caller.
   */
  start(what: string, task: () => Promise<unknown>): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.report(what, error),
      )
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  /** Resolves once everything started so far (and anything it started) has finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
