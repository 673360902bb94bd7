import type { Clock } from '../ports/Clock.js';
import type { ResourceKit } from './ResourceKit.js';

/** What an entity of a declared resource offers a command: its version check and the command's method. */
export interface Commandable {
  requireVersion(versions: readonly number[] | undefined): void;
}

/**
 * Runs one declared command (`ship`) on a row: reads it under the repository's lock, checks the
 * version the caller expects (an `If-Match`: the resource's version mismatch when it is not
 * current), calls the entity's method of the command's name (which refuses, ConflictError, a row
 * in a state the command does not start from) and stores what it answers. The resource's
 * NotFoundError when unknown — and, with `owner`, when the row belongs to anyone else.
 */
export class RunCommand<E extends Commandable> {
  constructor(private readonly deps: ResourceKit<E> & { readonly clock: Clock; readonly verb: string }) {}

  async execute(input: {
    readonly id: string;
    readonly expectedVersions?: readonly number[];
    /** Only this owner's row (a caller whose rule reaches only their own rows). */
    readonly owner?: string;
  }): Promise<E> {
    const { rows, errors, clock, verb } = this.deps;
    const changed = await rows.update(
      input.id,
      (current) => {
        current.requireVersion(input.expectedVersions);
        const method = (current as unknown as Record<string, unknown>)[verb];
        if (typeof method !== 'function') throw new Error(`the entity has no method ${verb} for its command`);
        return (method as (now: Date) => E).call(current, clock.now());
      },
      input.owner,
    );
    if (!changed) throw errors.notFound(input.id);
    return changed;
  }
}
