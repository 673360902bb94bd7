import type { GraphQLContext } from './resolverKit.js';

interface Batch<V> {
  readonly keys: Set<string>;
  readonly loaded: Promise<ReadonlyMap<string, V>>;
}

/**
 * Loads `key` together with every other key asked of the same `name` while the request's current
 * step of resolution runs — a page of 50 invoices asking for their customers is one `load` of up to
 * 50 ids, not 50 reads. Batches live on the request's context, so no two requests share one.
 * `load` runs once the step is done (`setImmediate`: every resolver of the page has asked by then).
 */
export function batchLoad<V>(
  context: GraphQLContext,
  name: string,
  key: string,
  load: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
): Promise<V | undefined> {
  const batches = (context.batches ??= new Map());
  let batch = batches.get(name) as Batch<V> | undefined;
  if (!batch) {
    const keys = new Set<string>();
    const loaded = new Promise<ReadonlyMap<string, V>>((resolve, reject) =>
      setImmediate(() => {
        // Later keys of the same name start a new batch.
        batches.delete(name);
        load([...keys]).then(resolve, reject);
      }),
    );
    batch = { keys, loaded };
    batches.set(name, batch);
  }
  batch.keys.add(key);
  return batch.loaded.then((values) => values.get(key));
}
