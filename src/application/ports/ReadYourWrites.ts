/** One request, as read-your-writes sees it. */
export interface ClientRequest {
  /** The keys naming its client: its address, and its user when it says who it is. */
  readonly clients: readonly string[];
  /**
   * The request means to change something (a write method, a GraphQL mutation): all its reads go
   * to the primary, so that what it checks before writing — a password, a refresh token, a
   * version, a uniqueness — is current.
   */
  readonly changing: boolean;
  /** The keys its writes are remembered for, known once it ran (its authenticated user too); `clients` when absent. */
  readonly writers?: () => readonly string[];
}

/**
 * Read-your-writes while reads may go to database replicas: one request's work runs so that its
 * reads see every write its client made before, and once it is done, the writes it made are
 * remembered for its client's next requests.
 */
export interface ReadYourWrites {
  /**
   * Runs `work` for `request`, reading every write its client made before (or all on the primary
   * when it is `changing`); if `work` wrote, remembers that for its writers before resolving — the
   * client's next request, sent after this answer, reads it. Never rejects for its own sake: a
   * store that cannot be reached makes the request read from the primary. Resolves or rejects as
   * `work` does.
   */
  serve<T>(request: ClientRequest, work: () => Promise<T>): Promise<T>;
}
