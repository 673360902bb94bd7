import type { Clock } from '../ports/Clock.js';
import type { ResourceKit } from './ResourceKit.js';

/** What an entity of a declared resource offers an update: its version check and its checked change. */
export interface Updatable<C> {
  requireVersion(versions: readonly number[] | undefined): void;
  update(changes: C, now: Date): this;
}

/**
 * Partial update: absent fields stay, present ones are validated and set, and the version is
 * bumped. The change is applied by the repository as one atomic read-modify-write, so concurrent
 * updates all succeed and each field keeps its last write. With `expectedVersions` (an `If-Match`)
 * the update is conditional: a row at another version answers the resource's version mismatch and
 * is left as it is. An empty change returns the row untouched (after the same check). A value that
 * breaks its field's rule is a ValidationError; the resource's NotFoundError when unknown — and,
 * with `owner`, when the row belongs to anyone else. An owned resource's owner never changes: an
 * `ownerId` among the changes other than the row's is refused as read-only.
 */
export class UpdateResource<E extends Updatable<C>, C extends object> {
  constructor(private readonly deps: ResourceKit<E> & { readonly clock: Clock }) {}

  async execute(input: {
    readonly id: string;
    readonly changes: C;
    /** The versions the caller accepts the row to be at; absent: any. */
    readonly expectedVersions?: readonly number[];
    /** Only this owner's row (a caller whose rule reaches only their own rows). */
    readonly owner?: string;
  }): Promise<E> {
    const { id, changes, expectedVersions, owner } = input;
    const { rows, errors, clock } = this.deps;
    if (Object.values(changes).every((value) => value === undefined)) {
      const current = await rows.findById(id, owner);
      if (!current) throw errors.notFound(id);
      current.requireVersion(expectedVersions);
      return current;
    }
    const updated = await rows.update(
      id,
      (current) => {
        current.requireVersion(expectedVersions);
        // Read under the lock, so `updatedAt` grows with the version.
        return current.update(changes, clock.now());
      },
      owner,
    );
    if (!updated) throw errors.notFound(id);
    return updated;
  }
}
