import type { IdGenerator } from '../../src/application/ports/IdGenerator.js';

/** UUID-shaped (version 4 layout) ids from a counter: `00000000-0000-4000-8000-000000000001`, … */
export class SequentialIds implements IdGenerator {
  private counter = 0;

  constructor(private readonly prefix = '00000000') {}

  newId(): string {
    this.counter += 1;
    return `${this.prefix}-0000-4000-8000-${this.counter.toString(16).padStart(12, '0')}`;
  }

  /** How many ids have been handed out. */
  get issued(): number {
    return this.counter;
  }
}
