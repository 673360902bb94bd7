import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

interface Measure {
  /** Levels of fields below (and including) the selection set's own fields. */
  depth: number;
  /** Fields execution would resolve, every fragment spread counted as often as it is spread. */
  fields: number;
  aliases: number;
}

/**
 * Where counts stop growing: a fragment spread twice in each of n nested fragments selects 2^n
 * fields, which would reach Infinity; past this the count only ever means "too many".
 */
export const SATURATED = Number.MAX_SAFE_INTEGER;
/** `a + b`, stopping at SATURATED. */
export const add = (a: number, b: number): number => Math.min(a + b, SATURATED);
/** A count as a message shows it: a saturated one as "at least …". */
export const shown = (count: number): string => (count >= SATURATED ? `at least ${SATURATED}` : String(count));

const NONE: Measure = { depth: 0, fields: 0, aliases: 0 };

/**
 * Measures selection sets with each fragment walked once: a fragment's measure is remembered and
 * added wherever it is spread, so the cost is linear in the document however often fragments
 * spread each other.
 */
class Measurer {
  private readonly fragments = new Map<string, Measure>();
  private readonly inProgress = new Set<string>();

  constructor(private readonly fragment: (name: string) => FragmentDefinitionNode | null | undefined) {}

  /** Depth (a field directly in `set` is 1), field count and alias count, fragments included. */
  selectionSet(set: SelectionSetNode): Measure {
    const total: Measure = { ...NONE };
    for (const selection of set.selections) {
      let part: Measure;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? this.selectionSet(selection.selectionSet) : NONE;
        part = {
          depth: below.depth + 1,
          fields: add(below.fields, 1),
          aliases: add(below.aliases, selection.alias ? 1 : 0),
        };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        part = this.selectionSet(selection.selectionSet);
      } else {
        part = this.spread(selection.name.value);
      }
      total.depth = Math.max(total.depth, part.depth);
      total.fields = add(total.fields, part.fields);
      total.aliases = add(total.aliases, part.aliases);
    }
    return total;
  }

  private spread(name: string): Measure {
    const known = this.fragments.get(name);
    if (known) return known;
    const fragment = this.fragment(name);
    // Unknown and cyclic fragments are reported by the standard rules; here they count as nothing.
    if (!fragment || this.inProgress.has(name)) return NONE;
    this.inProgress.add(name);
    const measure = this.selectionSet(fragment.selectionSet);
    this.inProgress.delete(name);
    this.fragments.set(name, measure);
    return measure;
  }
}

export interface QueryLimits {
  /** Deepest field allowed; every field counts, introspection included, a root field is 1. */
  maxDepth: number;
  /** Most fields one operation may select, fragments expanded. */
  maxFields: number;
  /** Most aliased fields one operation may use (aliases multiply work without depth). */
  maxAliases: number;
}

/**
 * Refuses operations past the limits before anything executes. Each fragment is measured once
 * per document, so refusing costs time linear in the document's size.
 */
export function queryLimits(limits: QueryLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const measurer = new Measurer((name) => context.getFragment(name));
    return {
      OperationDefinition(node) {
        const { depth, fields, aliases } = measurer.selectionSet(node.selectionSet);
        if (depth > limits.maxDepth) {
          context.reportError(
            new GraphQLError(`query depth ${depth} exceeds the limit of ${limits.maxDepth}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_DEEP' },
            }),
          );
        }
        if (fields > limits.maxFields) {
          context.reportError(
            new GraphQLError(`query selects ${shown(fields)} fields, more than the limit of ${limits.maxFields}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_COMPLEX' },
            }),
          );
        }
        if (aliases > limits.maxAliases) {
          context.reportError(
            new GraphQLError(`query uses ${shown(aliases)} aliases, more than the limit of ${limits.maxAliases}`, {
              nodes: [node],
              extensions: { code: 'QUERY_TOO_COMPLEX' },
            }),
          );
        }
      },
    };
  };
}
