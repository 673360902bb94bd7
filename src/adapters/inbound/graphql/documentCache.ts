import type { DocumentNode } from 'graphql';

/**
 * Parsed documents by source text, bounded by a total weight (an estimate of the heap each parsed
 * document holds) rather than a count, so a few large documents cannot take what many small ones
 * would. The least recently used documents go first when a new one does not fit; a document
 * heavier than the whole budget is never kept.
 */
export class DocumentCache {
  private readonly entries = new Map<string, { document: DocumentNode; weight: number }>();
  private total = 0;

  constructor(private readonly maxWeight: number) {}

  /** The document parsed from `source`, if kept; it becomes the most recently used. */
  get(source: string): DocumentNode | undefined {
    const entry = this.entries.get(source);
    if (!entry) return undefined;
    this.entries.delete(source);
    this.entries.set(source, entry);
    return entry.document;
  }

  /** Keeps `document` under `source`, evicting the least recently used entries to make room. */
  set(source: string, document: DocumentNode, weight: number): void {
    if (weight > this.maxWeight) return;
    this.delete(source);
    for (const [oldest] of this.entries) {
      if (this.total + weight <= this.maxWeight) break;
      this.delete(oldest);
    }
    this.entries.set(source, { document, weight });
    this.total += weight;
  }

  /** How many documents are kept. */
  get size(): number {
    return this.entries.size;
  }

  /** The sum of the kept documents' weights, never more than the budget. */
  get weight(): number {
    return this.total;
  }

  private delete(source: string): void {
    const entry = this.entries.get(source);
    if (!entry) return;
    this.entries.delete(source);
    this.total -= entry.weight;
  }
}

/**
 * Heap bytes a parsed document holds per lexical token (with locations): an estimate, from the
 * measurement in docs/adr/0010-graphql-refusals-cost-little.md.
 */
const BYTES_PER_TOKEN = 300;

/**
 * An estimate of the heap a parsed document holds: its source text (UTF-16) plus its tokens,
 * which a document parsed with locations keeps alive as a linked list, and the nodes built on them.
 */
export function documentWeight(source: string, document: DocumentNode): number {
  let tokens = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) tokens += 1;
  return 2 * source.length + BYTES_PER_TOKEN * tokens;
}
