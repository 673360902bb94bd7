import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { AccessScope } from '../../../application/ports/AccessPolicy.js';
import type { ListQuery } from '../../../domain/shared/Page.js';
import type { FieldDeclarations, FieldValues, ResourceEntity, SortFieldOf } from '../../../domain/shared/resource.js';
import {
  commandsOf,
  fileFieldsOf,
  idReader,
  ownerFor,
  relationsOf,
  type InboundResource,
  type ParentResource,
  type ParentsOf,
  type ResourceUseCases,
} from '../resources.js';
import { ifMatchVersions, notSearch, withETag } from './conditional.js';
import { success } from './envelope.js';
import { fileFieldRoutes, type FileUploaded } from './fileRoutes.js';
import { RestRoutes, type Operation } from './operations.js';
import { pageMeta } from './presenters.js';
import { commandKey, linkedPresenter, nestedListKey, operationsOf, restPresenter } from './resourceOperations.js';
import type { RequestState } from './state.js';

type Entity<F extends FieldDeclarations> = ResourceEntity<F> & FieldValues<F>;

/**
 * The owner a call of an owned resource is limited to: the caller, when the rule that let them
 * in reaches only their own rows (`scope` from the access check); else none (every row).
 */
export function ownerFilter(
  resource: { readonly owned: boolean },
  ctx: Pick<RouterContext<RequestState>, 'state'>,
  scope: AccessScope | undefined = ctx.state.access?.scope,
): { owner?: string } {
  return ownerFor(resource, scope, ctx.state.principal?.userId);
}

/**
 * A declared resource's REST routes (docs/lists.md): the collection (list, create), `/search` when
 * it has a search field, `/:id` (get, update, delete), and for each `ref` field the nested list
 * under the referenced row (`/customers/:id/invoices`: 404 for an unknown one, given `parents`);
 * token and policy on all; and `POST /:id/<verb>` for each declared command (409 from a state the
 * command does not start from). An answer carrying one row carries its version (`ETag`), a create
 * its path (`Location`); update, delete and the commands take `If-Match`. An owned resource's row
 * belongs to the caller who creates it; a caller whose rule reaches only their own rows gets only
 * those (another's id is not found). A resource with `file` fields gets their routes too
 * (`fileFieldRoutes`), answering an item as these do; `uploaded` is told of each file stored.
 */
export function resourceRoutes<F extends FieldDeclarations, E extends Entity<F>>(
  resource: InboundResource<F>,
  useCases: ResourceUseCases<E, F>,
  parents?: ParentsOf<F>,
  uploaded?: FileUploaded,
): (router: Router<RequestState>) => void {
  const ops = operationsOf(resource.declaration);
  const present = restPresenter(resource.declaration);
  // A resource with file fields answers each file with its signed link: made (async) before presenting.
  const linked =
    fileFieldsOf(resource.declaration).length > 0
      ? linkedPresenter<F, E>(resource.declaration, useCases.links)
      : undefined;
  const one =
    linked &&
    (async (ctx: Parameters<typeof withETag>[0], entity: E): Promise<Record<string, unknown>> => {
      const [wire = {}] = await linked([entity]);
      return withETag(ctx, entity, () => wire);
    });
  const idOf = idReader(resource.notFound);
  type Query = ListQuery<SortFieldOf<F>>;
  return (router) => {
    const api = new RestRoutes(router, useCases);
    const search = 'search' in ops ? (ops.search as Operation) : undefined;
    // With a search route, `/search` is never taken for an id.
    const notAnId = search ? [notSearch] : [];

    const owned = resource.declaration;
    api.on(ops.list, async (ctx, { query }) => {
      const page = await useCases.list.execute({ ...(query as Query), ...ownerFilter(owned, ctx) });
      ctx.body = success(linked ? await linked(page.items) : page.items.map(present), { meta: pageMeta(page) });
    });

    for (const relation of relationsOf(resource.declaration).filter((r) => r.reverse)) {
      const parent = (parents as Readonly<Record<string, ParentResource>> | undefined)?.[relation.key];
      if (!parent) throw new Error(`${resource.declaration.plural}: no parent resource given for ${relation.key}`);
      const parentId = idReader((id) => parent.resource.notFound(id));
      const nested = (ops as Record<string, Operation>)[nestedListKey(relation)]!;
      api.on(nested, async (ctx, { query }) => {
        const id = parentId(ctx.params.id);
        await parent.useCases.get.execute({
          id,
          ...ownerFilter(parent.resource.declaration, ctx, ctx.state.access?.reads[0]),
        });
        const list = query as unknown as Query;
        const page = await useCases.list.execute({
          ...list,
          filters: { ...list.filters, [relation.field]: id },
          ...ownerFilter(owned, ctx),
        });
        ctx.body = success(linked ? await linked(page.items) : page.items.map(present), { meta: pageMeta(page) });
      });
    }

    api.on(ops.create, async (ctx, { body }) => {
      const owner = owned.owned ? { owner: ctx.state.principal?.userId } : {};
      const created = await useCases.create.execute({ ...(body as object), ...owner } as never);
      ctx.status = 201;
      ctx.set('Location', `${ops.create.path}/${created.id}`);
      ctx.body = success(one ? await one(ctx, created) : withETag(ctx, created, present));
    });

    // Registered before `/:id`.
    if (search && useCases.search) {
      const searching = useCases.search;
      api.on(search, async (ctx, { query }) => {
        const list = query as unknown as Query & { q?: string };
        const page = await searching.execute({ ...list, q: list.q ?? '', ...ownerFilter(owned, ctx) });
        ctx.body = success(linked ? await linked(page.items) : page.items.map(present), { meta: pageMeta(page) });
      });
    }

    api.on(ops.get, async (ctx) => {
      const id = idOf(ctx.params.id);
      const found = await useCases.get.execute({ id, ...ownerFilter(owned, ctx) });
      ctx.body = success(one ? await one(ctx, found) : withETag(ctx, found, present));
    });

    api.on(
      ops.update,
      async (ctx, { body }) => {
        const id = idOf(ctx.params.id);
        const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
        const changes = body as never;
        const updated = await useCases.update.execute({ id, changes, expectedVersions, ...ownerFilter(owned, ctx) });
        ctx.body = success(one ? await one(ctx, updated) : withETag(ctx, updated, present));
      },
      ...notAnId,
    );

    api.on(
      ops.remove,
      async (ctx) => {
        const id = idOf(ctx.params.id);
        const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
        await useCases.remove.execute({ id, expectedVersions, ...ownerFilter(owned, ctx) });
        ctx.status = 204;
      },
      ...notAnId,
    );

    for (const command of commandsOf(resource.declaration)) {
      const run = useCases.commands?.[command.verb];
      if (!run) throw new Error(`${resource.declaration.plural}: no use case given for the command ${command.verb}`);
      api.on((ops as Record<string, Operation>)[commandKey(command)]!, async (ctx) => {
        const id = idOf(ctx.params.id);
        const expectedVersions = ifMatchVersions(ctx.headers['if-match']);
        const changed = await run.execute({ id, expectedVersions, ...ownerFilter(owned, ctx) });
        ctx.body = success(one ? await one(ctx, changed) : withETag(ctx, changed, present));
      });
    }

    if (useCases.files) {
      const answer = one ?? ((ctx: Parameters<typeof withETag>[0], entity: E) => withETag(ctx, entity, present));
      const options = { guards: useCases, answer, ...(uploaded ? { uploaded } : {}) };
      fileFieldRoutes(
        { ...resource.declaration, notFound: resource.notFound },
        ops.get,
        useCases.files,
        options,
      )(router);
    }
  };
}
