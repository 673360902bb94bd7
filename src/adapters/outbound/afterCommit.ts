import type { Transaction } from '../../domain/shared/Transaction.js';

/** What runs once a transaction committed: told of it after the fact, never able to undo it. */
type Hook = () => void | Promise<void>;

/** The hooks of each open transaction (the object its `Transactions.run` hands to the work). */
const hooks = new WeakMap<object, Hook[]>();

/**
 * Runs `work` in a transaction of `open`, then — once it committed — the hooks registered on it with
 * `afterCommit`, in order (a hook that throws is the caller's problem: they are adapters' own
 * bookkeeping, which does not throw). A rollback runs none.
 */
export async function withCommitHooks<T, X extends object>(
  open: (work: (tx: X) => Promise<T>) => Promise<T>,
  work: (tx: X) => Promise<T>,
): Promise<T> {
  const registered: Hook[] = [];
  const result = await open((tx) => {
    hooks.set(tx, registered);
    return work(tx);
  });
  for (const hook of registered) await hook();
  return result;
}

/**
 * Runs `hook` once `within` committed — at once when there is no transaction (the write it follows
 * is done already) or when `within` was not opened through `withCommitHooks`. For what must not be
 * told before a write is visible: a cache forgetting a user, another instance told of it, a count.
 */
export async function afterCommit(within: Transaction | undefined, hook: Hook): Promise<void> {
  const registered = within ? hooks.get(within) : undefined;
  if (registered) registered.push(hook);
  else await hook();
}
