import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';

interface Measure {
  depth: number;
  fields: number;
  aliases: number;
}

/** Depth (a root field is 1), field count and alias count of a selection set, fragments inlined. */
function measure(context: ValidationContext, set: SelectionSetNode, depth: number, seen: ReadonlySet<string>): Measure {
  const total: Measure = { depth: depth - 1, fields: 0, aliases: 0 };
  for (const selection of set.selections) {
    let part: Measure;
    if (selection.kind === Kind.FIELD) {
      part = selection.selectionSet ? measure(context, selection.selectionSet, depth + 1, seen) : { depth, fields: 0, aliases: 0 };
      part = { depth: Math.max(part.depth, depth), fields: part.fields + 1, aliases: part.aliases + (selection.alias ? 1 : 0) };
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      part = measure(context, selection.selectionSet, depth, seen);
    } else {
      const name = selection.name.value;
      const fragment = context.getFragment(name);
      if (!fragment || seen.has(name)) continue; // unknown or cyclic fragments are reported by the standard rules
      part = measure(context, fragment.selectionSet, depth, new Set([...seen, name]));
    }
    total.depth = Math.max(total.depth, part.depth);
    total.fields += part.fields;
    total.aliases += part.aliases;
  }
  return total;
}

export interface QueryLimits {
  /** Deepest field allowed; every field counts, introspection included, a root field is 1. */
  maxDepth: number;
  /** Most fields one operation may select, fragments expanded. */
  maxFields: number;
  /** Most aliased fields one operation may use (aliases multiply work without depth). */
  maxAliases: number;
}

/** Refuses operations past the limits before anything executes. */
export function queryLimits(limits: QueryLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const { depth, fields, aliases } = measure(context, node.selectionSet, 1, new Set());
      if (depth > limits.maxDepth) {
        context.reportError(
          new GraphQLError(`query depth ${depth} exceeds the limit of ${limits.maxDepth}`, { nodes: [node], extensions: { code: 'QUERY_TOO_DEEP' } }),
        );
      }
      if (fields > limits.maxFields) {
        context.reportError(
          new GraphQLError(`query selects ${fields} fields, more than the limit of ${limits.maxFields}`, { nodes: [node], extensions: { code: 'QUERY_TOO_COMPLEX' } }),
        );
      }
      if (aliases > limits.maxAliases) {
        context.reportError(
          new GraphQLError(`query uses ${aliases} aliases, more than the limit of ${limits.maxAliases}`, { nodes: [node], extensions: { code: 'QUERY_TOO_COMPLEX' } }),
        );
      }
    },
  });
}
