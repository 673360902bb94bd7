/** How many list items of one request graphql-js is given to complete in one turn of the event loop. */
export const ITEMS_PER_TURN = 100;

interface Slot {
  /** Resolves on the turn this slot's items may be completed in; `undefined`: the first turn, now. */
  readonly gate: Promise<void> | undefined;
  count: number;
}

/** A request's pacing state, kept on its GraphQL context. */
export interface Pace {
  slot: Slot;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `items` as a list field should answer them so that a large answer is built over many turns of the
 * event loop rather than in one: the request's first ITEMS_PER_TURN items as they are, each further
 * ITEMS_PER_TURN behind a promise that resolves one turn (`setImmediate`) after the previous ones'.
 * graphql-js completes an item — its fields, its own lists — when its promise resolves, so between
 * two of a request's slices the service reads sockets and answers others (its health probes among
 * them). A single page (up to 100 items) is never delayed.
 */
export function paced<T>(context: { pace?: Pace }, items: readonly T[]): (T | Promise<T>)[] {
  const pace = (context.pace ??= { slot: { gate: undefined, count: 0 } });
  const out: (T | Promise<T>)[] = new Array<T | Promise<T>>(items.length);
  for (let i = 0; i < items.length; i += 1) {
    if (pace.slot.count >= ITEMS_PER_TURN) {
      const previous = pace.slot.gate;
      pace.slot = { gate: previous ? previous.then(nextTurn) : nextTurn(), count: 0 };
    }
    pace.slot.count += 1;
    const item = items[i]!;
    const gate = pace.slot.gate;
    out[i] = gate ? gate.then(() => item) : item;
  }
  return out;
}
