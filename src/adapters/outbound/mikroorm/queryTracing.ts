import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';

/** What knex's `query`, `query-response` and `query-error` events say about a query (the part used here). */
interface QueryEvent {
  __knexQueryUid?: string;
  sql?: string;
}

/**
 * The statement's first keyword (`select`, `insert`, `begin`…), lower case: never anything from
 * the values, which are bound as parameters and never put on a span.
 */
export function operationOf(sql: string | undefined): string {
  const keyword = /^\s*([A-Za-z]{1,16})\b/.exec(sql ?? '')?.[1];
  return keyword ? keyword.toLowerCase() : 'query';
}

function startQuerySpan(tracer: Tracer, system: string, sql: string | undefined): Span | undefined {
  const active = context.active();
  // Only inside a traced request: start-up, migrations and background reloads make no lone spans.
  if (trace.getSpan(active) === undefined) return undefined;
  const operation = operationOf(sql);
  return tracer.startSpan(
    `db ${operation}`,
    { kind: SpanKind.CLIENT, attributes: { 'db.system': system, 'db.operation': operation } },
    active,
  );
}

function failed(span: Span, error: unknown): void {
  // The error's code only: a driver's message can quote the values (PostgreSQL's "Key (email)=(…)").
  const code =
    typeof error === 'object' && error !== null && 'code' in error
      ? String((error as { code: unknown }).code)
      : undefined;
  if (code) span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/**
 * A CLIENT span per database query of `orm` (`db select`, with `db.system` and `db.operation`,
 * never the statement's values), a child of the request's span, from knex's query events: for
 * everything that goes through knex (the SQL executor's statements make their own, `inQuerySpan`).
 * Queries outside a traced request are not traced. knex's events tell one query from another by
 * `__knexQueryUid`, the field knex added to them for exactly this (knex/knex#1510).
 */
export function traceQueries(orm: MikroORM, tracer: Tracer): void {
  const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
  const system = knex.client.dialect === 'postgresql' ? 'postgresql' : 'sqlite';
  const open = new Map<string, Span>();
  knex.on('query', (query: QueryEvent) => {
    if (query.__knexQueryUid === undefined) return;
    const span = startQuerySpan(tracer, system, query.sql);
    if (span) open.set(query.__knexQueryUid, span);
  });
  knex.on('query-response', (_response: unknown, query: QueryEvent) => {
    const uid = query.__knexQueryUid;
    if (uid === undefined) return;
    open.get(uid)?.end();
    open.delete(uid);
  });
  knex.on('query-error', (error: unknown, query: QueryEvent) => {
    const uid = query.__knexQueryUid;
    const span = uid === undefined ? undefined : open.get(uid);
    if (!span) return;
    open.delete(uid!);
    failed(span, error);
  });
}

/** Runs `run` (a statement of the SQL executor) in a query span when it is traced; else just runs it. */
export function inQuerySpan<T>(
  traced: { readonly tracer: Tracer; readonly system: string } | undefined,
  sql: string,
  run: () => Promise<T>,
): Promise<T> {
  const span = traced && startQuerySpan(traced.tracer, traced.system, sql);
  return span ? spanned(span, run) : run();
}

async function spanned<T>(span: Span, run: () => Promise<T>): Promise<T> {
  try {
    const result = await run();
    span.end();
    return result;
  } catch (error) {
    failed(span, error);
    throw error;
  }
}
