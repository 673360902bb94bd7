/**
 * Read-your-writes while reads may go to database replicas: one request's work runs so that its
 * reads see every write its client made before (the client named by keys: its address, its user),
 * and once it is done, the writes it made are remembered for its client's next requests.
 */
export interface ReadYourWrites {
  /**
   * Runs `work`, one request of the client named by `clients`, reading every write those keys made
   * before; if `work` wrote, remembers that for `writers()` (the keys known once it ran; `clients`
   * when absent) before resolving — the client's next request, sent after this answer, reads it.
   * Never rejects for its own sake: a store that cannot be reached makes the request read from the
   * primary. Resolves or rejects as `work` does.
   */
  serve<T>(clients: readonly string[], work: () => Promise<T>, writers?: () => readonly string[]): Promise<T>;
}
