import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { execute, getOperationAST, Kind, type ExecutionArgs, type ExecutionResult } from 'graphql';

/**
 * `<kind> <name>`: the operation's own name, or for an anonymous one its first root field
 * (`query products`), or the kind alone.
 */
export function operationSpanName(args: ExecutionArgs): { kind: string; name: string | undefined; spanName: string } {
  const operation = getOperationAST(args.document, args.operationName);
  const kind = operation?.operation ?? 'query';
  const first = operation?.selectionSet.selections[0];
  const name = operation?.name?.value;
  const label = name ?? (first?.kind === Kind.FIELD ? first.name.value : undefined);
  return { kind, name, spanName: label === undefined ? kind : `${kind} ${label}` };
}

/**
 * graphql-js's `execute` inside an INTERNAL span per operation, a child of the request's span, with
 * the operation's kind, name and outcome (`success`, or `error` — status ERROR — when the result
 * carries errors). The resolvers' database queries are its children. Never the document or variables.
 */
export function tracedExecute(tracer: Tracer): typeof execute {
  return (args: ExecutionArgs) => {
    const { kind, name, spanName } = operationSpanName(args);
    const attributes = {
      'graphql.operation.type': kind,
      ...(name === undefined ? {} : { 'graphql.operation.name': name }),
    };
    const span = tracer.startSpan(spanName, { kind: SpanKind.INTERNAL, attributes });
    const settle = (result: ExecutionResult): ExecutionResult => {
      const failed = (result.errors?.length ?? 0) > 0;
      span.setAttribute('graphql.outcome', failed ? 'error' : 'success');
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      return result;
    };
    try {
      const result = context.with(trace.setSpan(context.active(), span), () => execute(args));
      return result instanceof Promise
        ? result.then(settle, (error: unknown) => Promise.reject(fail(span, error)))
        : settle(result);
    } catch (error) {
      throw fail(span, error);
    }
  };
}

function fail(span: ReturnType<Tracer['startSpan']>, error: unknown): unknown {
  span.setAttribute('graphql.outcome', 'error');
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
  return error;
}
