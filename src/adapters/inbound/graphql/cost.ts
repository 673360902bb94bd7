import {
  getNamedType,
  getNullableType,
  getOperationAST,
  GraphQLError,
  isCompositeType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  valueFromASTUntyped,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { LIST_DEFAULTS } from '../codecs/listCodecs.js';
import { add, SATURATED, shown } from './limits.js';

/** The argument that makes a field paginated: an input object with a `limit` (TPaginationInputDto). */
const PAGINATION = 'pagination';

/** `a × b`, stopping at SATURATED like `add`. */
const times = (a: number, b: number): number => Math.min(a * b, SATURATED);

/**
 * What a selection set costs for one object it is selected on, as a function of the page size of
 * the paginated field it sits in (1 where there is none): `fixed + perItem × limit`. Keeping the two
 * apart lets a fragment be measured once wherever it is spread.
 */
interface Measure {
  /** Objects of the fields that are not lists, and everything below them. */
  fixed: number;
  /** Objects below each item of the list fields (the item included), to be multiplied by the page size. */
  perItem: number;
  /** Whether a page size below depends on the request's variables. */
  variables: boolean;
}

const NONE: Measure = { fixed: 0, perItem: 0, variables: false };

/** The request an operation's cost depends on. */
export interface CostRequest {
  /** The operation to run; absent or null: the document's only one. */
  operationName?: string | null;
  /** The request's variables; the operation's own defaults fill in the ones not given. */
  variableValues?: Readonly<Record<string, unknown>> | null;
}

/** An operation's cost, and whether it depends on the request's variables. */
export interface QueryCost {
  cost: number;
  variables: boolean;
}

/** Whether `value` mentions a variable anywhere. */
function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => hasVariable(field.value));
  return false;
}

/** Whether `field` takes `pagination: {limit, …}`. */
function isPaginated(field: GraphQLField<unknown, unknown>): boolean {
  const argument = field.args.find((arg) => arg.name === PAGINATION);
  const type = argument && getNamedType(argument.type);
  return isInputObjectType(type) && 'limit' in type.getFields();
}

/**
 * Measures an operation's selection sets with each fragment walked once: a fragment's measure is
 * remembered and added wherever it is spread (cost is linear in the count of parent objects), so the
 * time taken is linear in the document however often fragments spread each other.
 */
class CostMeasurer {
  private readonly definitions = new Map<string, FragmentDefinitionNode>();
  private readonly fragments = new Map<string, Measure>();
  private readonly inProgress = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly variables: Readonly<Record<string, unknown>>,
  ) {
    for (const definition of document.definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION && !this.definitions.has(definition.name.value))
        this.definitions.set(definition.name.value, definition);
  }

  /** What the operation costs: its root fields are each selected on the one root object. */
  operation(operation: OperationDefinitionNode): QueryCost {
    const measure = this.selectionSet(operation.selectionSet, this.schema.getRootType(operation.operation));
    return { cost: add(measure.fixed, measure.perItem), variables: measure.variables };
  }

  private selectionSet(set: SelectionSetNode, parent: GraphQLNamedType | null | undefined): Measure {
    const total: Measure = { ...NONE };
    for (const selection of set.selections) {
      let part: Measure;
      if (selection.kind === Kind.FIELD) part = this.field(selection, parent);
      else if (selection.kind === Kind.INLINE_FRAGMENT)
        part = this.selectionSet(
          selection.selectionSet,
          selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : parent,
        );
      else part = this.spread(selection.name.value);
      total.fixed = add(total.fixed, part.fixed);
      total.perItem = add(total.perItem, part.perItem);
      total.variables ||= part.variables;
    }
    return total;
  }

  /**
   * A field of a composite type is one object per parent, or — a list — one per item of the page
   * it sits in; the page size of a paginated field applies to the lists directly below it.
   */
  private field(node: FieldNode, parent: GraphQLNamedType | null | undefined): Measure {
    const field = this.definition(node.name.value, parent);
    const type = field && getNamedType(field.type);
    if (!field || !isCompositeType(type)) return NONE;
    const below = node.selectionSet ? this.selectionSet(node.selectionSet, type) : NONE;
    const page = isPaginated(field) ? this.pageSize(node) : { limit: 1, variables: false };
    const each = add(1, add(below.fixed, times(below.perItem, page.limit)));
    const variables = below.variables || page.variables;
    return isListType(getNullableType(field.type))
      ? { fixed: 0, perItem: each, variables }
      : { fixed: each, perItem: 0, variables };
  }

  /** The field `name` of `parent`, introspection's root fields included; unknown fields (invalid documents): none. */
  private definition(
    name: string,
    parent: GraphQLNamedType | null | undefined,
  ): GraphQLField<unknown, unknown> | undefined {
    if (parent && parent === this.schema.getQueryType()) {
      if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
      if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    }
    return isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
  }

  /**
   * A paginated field's `pagination.limit` — a literal or a variable's value — or the lists' default
   * page size when it is absent or null. A value execution would refuse counts as the default; a
   * negative one as 0, so no field can lower another's cost.
   */
  private pageSize(node: FieldNode): { limit: number; variables: boolean } {
    const argument = node.arguments?.find((arg) => arg.name.value === PAGINATION);
    if (!argument) return { limit: LIST_DEFAULTS.perPage, variables: false };
    const value = valueFromASTUntyped(argument.value, this.variables) as unknown;
    const limit = typeof value === 'object' && value !== null ? (value as { limit?: unknown }).limit : undefined;
    return {
      limit: typeof limit === 'number' && Number.isInteger(limit) ? Math.max(limit, 0) : LIST_DEFAULTS.perPage,
      variables: hasVariable(argument.value),
    };
  }

  private spread(name: string): Measure {
    const known = this.fragments.get(name);
    if (known) return known;
    const fragment = this.definitions.get(name);
    // Unknown and cyclic fragments are reported by the standard rules; here they count as nothing.
    if (!fragment || this.inProgress.has(name)) return NONE;
    this.inProgress.add(name);
    const measure = this.selectionSet(fragment.selectionSet, this.schema.getType(fragment.typeCondition.name.value));
    this.inProgress.delete(name);
    this.fragments.set(name, measure);
    return measure;
  }
}

/**
 * The worst-case number of objects the operation `request` selects in `document` may return: every
 * field of an object (or interface, or union) type counts once per object it is selected on, and a
 * list field once per item — the `pagination.limit` of the paginated field it sits in (its value, or
 * the default page size when absent), or 1 for a list with no such argument (introspection's lists,
 * `errors`). Aliases and fragments count wherever they are selected. The time taken is linear in the
 * document's size; counts too large to be exact stop at `Number.MAX_SAFE_INTEGER`. `undefined` when
 * the request names no single operation of the document (graphql-http then runs nothing).
 */
export function queryCost(schema: GraphQLSchema, document: DocumentNode, request: CostRequest): QueryCost | undefined {
  const operation = getOperationAST(document, request.operationName);
  return operation ? operationCost(schema, document, operation, request.variableValues) : undefined;
}

function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variableValues: CostRequest['variableValues'],
): QueryCost {
  const defaults: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? [])
    if (definition.defaultValue)
      defaults[definition.variable.name.value] = valueFromASTUntyped(definition.defaultValue);
  return new CostMeasurer(schema, document, { ...defaults, ...variableValues }).operation(operation);
}

/**
 * Costs of operations that do not depend on their variables, remembered per operation for one
 * schema: a document sent again (the parse cache hands back the same nodes) is not measured again.
 */
export type KnownCosts = WeakMap<OperationDefinitionNode, number>;

/**
 * The refusal of the operation `request` runs in `document` when its `queryCost` is over `maxCost`
 * (`extensions.code` `QUERY_TOO_COMPLEX`, the message naming the cost and the limit), or `undefined`.
 * `known` keeps the costs that depend on no variable between requests.
 */
export function costRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  maxCost: number,
  request: CostRequest,
  known: KnownCosts = new WeakMap(),
): GraphQLError | undefined {
  const operation = getOperationAST(document, request.operationName);
  if (!operation) return undefined;
  let cost = known.get(operation);
  if (cost === undefined) {
    const measured = operationCost(schema, document, operation, request.variableValues);
    cost = measured.cost;
    if (!measured.variables) known.set(operation, cost);
  }
  if (cost <= maxCost) return undefined;
  return new GraphQLError(`query may return ${shown(cost)} objects, more than the cost limit of ${maxCost}`, {
    nodes: [operation],
    extensions: { code: 'QUERY_TOO_COMPLEX' },
  });
}

/**
 * `costRefusal` as a validation rule, for a document validated in full: it depends on the request's
 * variables and operation, so it is built for each request.
 */
export function costLimit(maxCost: number, request: CostRequest, known: KnownCosts = new WeakMap()): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    Document(document) {
      const refusal = costRefusal(context.getSchema(), document, maxCost, request, known);
      if (refusal) context.reportError(refusal);
    },
  });
}
