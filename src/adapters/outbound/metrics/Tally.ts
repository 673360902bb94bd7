/** Something that counts events (a Prometheus counter, in the service): all a metered decorator needs. */
export interface Tally {
  inc(): void;
}
