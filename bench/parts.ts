/** The parts of `npm run bench` that `--only` selects (bench/run.ts); without it, every part runs. */
export const PARTS = ['table', 'overload', 'jobs', 'capacity'] as const;
export type Part = (typeof PARTS)[number];

/** The parts `--only <only>` runs; throws, naming the parts, on anything else. */
export function partsOf(only: string | undefined): ReadonlySet<Part> {
  if (only === undefined) return new Set(PARTS);
  const part = PARTS.find((p) => p === only);
  if (!part) throw new Error(`--only takes ${PARTS.slice(0, -1).join(', ')} or ${PARTS.at(-1)}`);
  return new Set([part]);
}
