/**
 * A resource's route paths, derived from its collection path: the router's patterns
 * (`/api/v1/products/:id`) and the access policy's forms of the same (`/api/v1/products/{id}`).
 */
export function resourcePaths<const C extends string>(collection: C) {
  return {
    collection,
    item: `${collection}/:id`,
    search: `${collection}/search`,
    /** How the policy (policy.csv, the admin API) names each route. */
    policy: { collection, item: `${collection}/{id}`, search: `${collection}/search` },
  } as const;
}
