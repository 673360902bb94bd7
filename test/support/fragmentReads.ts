import { Kind, type DocumentNode } from 'graphql';

/** Counts how often each fragment's selections are read (by a validation rule, or a visitor), by fragment name. */
export function countingFragmentReads(document: DocumentNode): Map<string, number> {
  const reads = new Map<string, number>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const name = definition.name.value;
    const { selections } = definition.selectionSet;
    reads.set(name, 0);
    Object.defineProperty(definition.selectionSet, 'selections', {
      get: () => {
        reads.set(name, reads.get(name)! + 1);
        return selections;
      },
    });
  }
  return reads;
}
