import type { RouterContext, RouterMiddleware } from '@koa/router';
import { HttpProblem, methodNotAllowed } from './HttpProblem.js';
import type { RequestState } from './state.js';

/** An answer carrying one resource carries its version as a strong entity tag: `ETag: "3"`. */
export function withETag<E extends { readonly version: number }, P>(
  ctx: RouterContext<RequestState>,
  entity: E,
  present: (entity: E) => P,
): P {
  ctx.set('ETag', `"${entity.version}"`);
  return present(entity);
}

const malformedIfMatch = (): HttpProblem =>
  new HttpProblem(400, 'BAD_REQUEST', 'invalid If-Match header', {}, 'expected * or quoted versions, e.g. "3"');

/** One member of an `If-Match` list: an optionally weak, quoted version number. */
const ENTITY_TAG = /^(W\/)?"([0-9]+)"$/;

/**
 * The versions an `If-Match` header accepts (RFC 9110 §13.1.1): `undefined` when it is absent or
 * `*` (any current resource; a missing one is 404 whatever the header). A weak tag, or one that is
 * not how this service writes a version (`"007"`), can never match under strong comparison, so it
 * adds nothing. Anything but `*` or a list of quoted integers is 400 `BAD_REQUEST`.
 */
export function ifMatchVersions(header: string | undefined): readonly number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const members = header
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
  if (members.length === 0) throw malformedIfMatch();
  const versions: number[] = [];
  for (const member of members) {
    const tag = ENTITY_TAG.exec(member);
    if (!tag) throw malformedIfMatch();
    const version = Number(tag[2]);
    if (tag[1] === undefined && String(version) === tag[2]) versions.push(version);
  }
  return versions;
}

/**
 * A searchable resource's `/search` is the search route (GET only), never an id: PUT or DELETE
 * there is 405, decided like any router fault, before the token is looked at.
 */
export const notSearch: RouterMiddleware<RequestState> = async (ctx, next) => {
  if (ctx.params.id === 'search') throw methodNotAllowed(['HEAD', 'GET', 'OPTIONS']);
  await next();
};
