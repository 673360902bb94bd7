import { expect } from 'chai';
import type { Clock } from '../../../src/application/ports/Clock.js';
import type { IdGenerator } from '../../../src/application/ports/IdGenerator.js';
import { ValidationError } from '../../../src/domain/shared/DomainError.js';
import type { ListQuery, Page } from '../../../src/domain/shared/Page.js';
import { FixedClock } from '../FixedClock.js';
import { SequentialIds } from '../SequentialIds.js';

/** What every entity of a resource has. */
export interface EntityLike {
  readonly id: string;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  toProps(): object;
}

type Props = Record<string, unknown>;
type Constructor<T> = abstract new (...args: never[]) => T;

/** A value the domain refuses for a field (camel-case prop), with its message. */
export interface DomainInvalid {
  readonly prop: string;
  /** The field's snake name, as the ValidationError names it. */
  readonly field: string;
  readonly value: unknown;
  readonly message: string;
}

/** The entity class of a resource, its errors and the domain's per-field rules. */
export interface EntityUnderTest<E extends EntityLike> {
  /** "Product" */
  readonly human: string;
  /** `Product.create` */
  create(input: Props & { id: string }, now: Date): E;
  /** `entity.update(changes, now)` */
  update(entity: E, changes: Props, now: Date): E;
  /** `entity.requireVersion(versions)` */
  requireVersion(entity: E, versions: readonly number[] | undefined): void;
  /** A valid create input without id (camel case, refs holding ids the repository knows). */
  readonly input: Props;
  /** The `n`-th row's values of the unique props (`n` = 0: those of `input`): no two rows the suite makes share one. */
  readonly distinct?: (n: number) => Props;
  /** What a create names besides the input: the caller who owns the row, for an owned resource (`{ owner }`). */
  readonly caller?: Props;
  /** A valid change of every field to another valid value. */
  readonly changes: Props;
  /** The optional props (nullable). */
  readonly optional: readonly string[];
  /** The props with a default: a create that leaves one out stores it. */
  readonly defaults?: readonly { readonly prop: string; readonly value: unknown }[];
  /** The read-only props, each with a valid value a client may not set it to (`is read-only`). */
  readonly readOnly?: readonly { readonly prop: string; readonly field: string; readonly other: unknown }[];
  readonly invalid: readonly DomainInvalid[];
  readonly notFound: Constructor<Error>;
  readonly versionMismatch: Constructor<Error>;
}

interface Executes<I, O> {
  execute(input: I): Promise<O>;
}

/** The use cases of a resource over one repository (the shared cores', in src/application/resources). */
export interface UseCasesOf<E, F extends string> {
  readonly create: Executes<never, E>;
  readonly get: Executes<{ id: string }, E>;
  readonly list: Executes<ListQuery<F>, Page<E>>;
  readonly search?: Executes<ListQuery<F> & { q: string }, Page<E>>;
  readonly update: Executes<{ id: string; changes: never; expectedVersions?: readonly number[] }, E>;
  readonly remove: Executes<{ id: string; expectedVersions?: readonly number[] }, void>;
}

/** A fresh in-memory repository (with the rows the input's references name already stored). */
export interface UseCasesUnderTest<E extends EntityLike, R, F extends string> extends EntityUnderTest<E> {
  /** The use cases over `repository`, with this id generator and clock. */
  useCases(repository: R, ids: IdGenerator, clock: Clock): UseCasesOf<E, F>;
  fresh(): Promise<R>;
  /** The searched prop (camel case), with `--search`. */
  readonly search?: string;
}

const START = new Date('2026-01-01T00:00:00Z');
const UNKNOWN = '00000000-0000-4000-8000-0000000000ff';

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return expect.fail('expected a rejection');
}

function expectViolation(error: unknown, field: string, message: string): void {
  expect(error).to.be.instanceOf(ValidationError);
  expect((error as ValidationError).fields).to.deep.equal([{ field, message }]);
}

/** The domain invariants of a resource's entity: creation, every rule per field, partial updates, versions. */
export function describeResourceEntity<E extends EntityLike>(subject: EntityUnderTest<E>): void {
  const id = '00000000-0000-4000-8000-000000000001';
  const later = new Date(START.getTime() + 60_000);

  describe(`${subject.human} (domain)`, () => {
    it('is created at version 1 with the input, created and updated now', () => {
      const entity = subject.create({ id, ...subject.input }, START);
      expect(entity.toProps()).to.deep.equal({ id, ...subject.input, version: 1, createdAt: START, updatedAt: START });
    });

    for (const prop of subject.optional) {
      it(`takes null for the optional ${prop}`, () => {
        expect(subject.create({ id, ...subject.input, [prop]: null }, START).toProps()).to.deep.include({
          [prop]: null,
        });
      });
    }

    for (const { prop, value } of subject.defaults ?? []) {
      it(`stores the default of ${prop} for a create that leaves it out`, () => {
        const { [prop]: _left, ...input } = subject.input;
        expect(subject.create({ id, ...input }, START).toProps()).to.deep.include({ [prop]: value });
      });
    }

    for (const { prop, field, other } of subject.readOnly ?? []) {
      it(`refuses the read-only ${prop} set to another value on create and update ("is read-only"); its current value sent back is accepted`, () => {
        let error: unknown;
        try {
          subject.create({ id, ...subject.input, [prop]: other }, START);
        } catch (caught) {
          error = caught;
        }
        expectViolation(error, field, 'is read-only');
        const entity = subject.create({ id, ...subject.input }, START);
        error = undefined;
        try {
          subject.update(entity, { [prop]: other }, later);
        } catch (caught) {
          error = caught;
        }
        expectViolation(error, field, 'is read-only');
        const current = (entity.toProps() as Props)[prop];
        expect(subject.update(entity, { [prop]: current }, later).toProps()).to.deep.include({
          [prop]: current,
          version: 2,
        });
      });
    }

    for (const invalid of subject.invalid) {
      it(`refuses ${invalid.prop} ${JSON.stringify(invalid.value)?.slice(0, 40) ?? String(invalid.value)}: "${invalid.message}", on create and update`, () => {
        let error: unknown;
        try {
          subject.create({ id, ...subject.input, [invalid.prop]: invalid.value }, START);
        } catch (caught) {
          error = caught;
        }
        expectViolation(error, invalid.field, invalid.message);
        const entity = subject.create({ id, ...subject.input }, START);
        error = undefined;
        try {
          subject.update(entity, { [invalid.prop]: invalid.value }, later);
        } catch (caught) {
          error = caught;
        }
        expectViolation(error, invalid.field, invalid.message);
        expect(entity.version).to.equal(1);
      });
    }

    for (const [prop, value] of Object.entries(subject.changes)) {
      it(`updates only ${prop}, bumping the version and updatedAt`, () => {
        const entity = subject.create({ id, ...subject.input }, START);
        const updated = subject.update(entity, { [prop]: value }, later);
        expect(updated.toProps()).to.deep.equal({ ...entity.toProps(), [prop]: value, version: 2, updatedAt: later });
        expect(entity.toProps()).to.deep.include({ version: 1, updatedAt: START });
      });
    }

    it('keeps every field an update leaves out', () => {
      const entity = subject.create({ id, ...subject.input }, START);
      expect(subject.update(entity, {}, later).toProps()).to.deep.equal({
        ...entity.toProps(),
        version: 2,
        updatedAt: later,
      });
    });

    it('requires one of the expected versions, or none', () => {
      const entity = subject.create({ id, ...subject.input }, START);
      subject.requireVersion(entity, undefined);
      subject.requireVersion(entity, [3, 1]);
      for (const versions of [[2], []]) {
        let error: unknown;
        try {
          subject.requireVersion(entity, versions);
        } catch (caught) {
          error = caught;
        }
        expect(error).to.be.instanceOf(subject.versionMismatch);
        expect(error).to.include({ code: 'PRECONDITION_FAILED', detail: `id: ${id}` });
      }
    });
  });
}

/**
 * The use cases of a resource on its in-memory repository: create, get, list, search, partial and
 * conditional update, conditional delete, and the NOT_FOUND / PRECONDITION_FAILED / VALIDATION_ERROR
 * answers.
 */
export function describeResourceUseCases<E extends EntityLike, R, F extends string>(
  subject: UseCasesUnderTest<E, R, F>,
): void {
  const notFoundMessage = `${subject.human} not found`;

  describe(`${subject.human} use cases (memory adapter)`, () => {
    let repository: R;
    let clock: FixedClock;
    let ids: SequentialIds;
    const useCases = () => subject.useCases(repository, ids, clock);
    let rowsMade = 0;
    /** Creates `input`; a unique prop left as `input` has it gets a value of this row's own. */
    const create = (input: Props = subject.input) => {
      const own = Object.entries(subject.distinct?.(rowsMade++) ?? {}).filter(
        ([prop]) => input[prop] === subject.input[prop],
      );
      return useCases().create.execute({ ...input, ...Object.fromEntries(own), ...subject.caller } as never);
    };
    const get = (id: string) => useCases().get.execute({ id });
    const update = (id: string, changes: Props, expectedVersions?: readonly number[]) =>
      useCases().update.execute({
        id,
        changes: changes as never,
        ...(expectedVersions ? { expectedVersions } : {}),
      });
    const remove = (id: string, expectedVersions?: readonly number[]) =>
      useCases().remove.execute({ id, ...(expectedVersions ? { expectedVersions } : {}) });
    const list = (query: Partial<ListQuery<F>> = {}) =>
      useCases().list.execute({ page: 1, perPage: 20, sort: 'created_at' as F, order: 'asc', ...query });

    beforeEach(async () => {
      repository = await subject.fresh();
      rowsMade = 0;
      clock = new FixedClock(START);
      ids = new SequentialIds();
    });

    it("creates with a new id at the clock's time, version 1, and stores it", async () => {
      const created = await create();
      expect(created.toProps()).to.deep.equal({
        id: '00000000-0000-4000-8000-000000000001',
        ...subject.input,
        version: 1,
        createdAt: START,
        updatedAt: START,
      });
      expect((await get(created.id)).toProps()).to.deep.equal(created.toProps());
    });

    for (const { prop, value } of subject.defaults ?? []) {
      it(`stores the default of ${prop} for a create that leaves it out`, async () => {
        const { [prop]: _left, ...input } = subject.input;
        const created = await create(input);
        expect((await get(created.id)).toProps()).to.deep.include({ [prop]: value });
      });
    }

    for (const { prop, field, other } of subject.readOnly ?? []) {
      it(`refuses the read-only ${prop} set by a client on create and update, storing nothing`, async () => {
        expectViolation(await rejectionOf(create({ ...subject.input, [prop]: other })), field, 'is read-only');
        expect((await list()).total).to.equal(0);
        const created = await create();
        expectViolation(await rejectionOf(update(created.id, { [prop]: other })), field, 'is read-only');
        expect((await get(created.id)).toProps()).to.deep.equal(created.toProps());
      });
    }

    for (const invalid of subject.invalid) {
      it(`refuses to create with ${invalid.prop} ${JSON.stringify(invalid.value)?.slice(0, 40) ?? String(invalid.value)}, storing nothing`, async () => {
        expectViolation(
          await rejectionOf(create({ ...subject.input, [invalid.prop]: invalid.value })),
          invalid.field,
          invalid.message,
        );
        expect((await list()).total).to.equal(0);
      });
    }

    it(`answers NOT_FOUND "${notFoundMessage}" for an unknown id on get, update and delete`, async () => {
      for (const attempt of [get(UNKNOWN), update(UNKNOWN, subject.changes), remove(UNKNOWN)]) {
        const error = await rejectionOf(attempt);
        expect(error).to.be.instanceOf(subject.notFound);
        expect(error).to.include({ code: 'NOT_FOUND', message: notFoundMessage, detail: `id: ${UNKNOWN}` });
      }
    });

    it('lists pages sorted by creation, ties by id, with the total', async () => {
      const made = [];
      for (let n = 0; n < 5; n += 1) {
        made.push(await create());
        if (n % 2 === 1) clock.advance(1_000);
      }
      const first = await list({ perPage: 2 });
      const rest = [await list({ perPage: 2, page: 2 }), await list({ perPage: 2, page: 3 })];
      expect([first, ...rest].flatMap((p) => p.items.map((e) => e.id))).to.deep.equal(made.map((e) => e.id));
      expect(first.total).to.equal(5);
      const descending = await list({ order: 'desc' });
      expect(descending.items.map((e) => e.id)).to.deep.equal(made.map((e) => e.id).reverse());
    });

    if (subject.search) {
      const prop = subject.search;
      it(`searches ${prop} case-insensitively, matching anywhere`, async () => {
        const base = String(subject.input[prop]);
        const hit = await create({ ...subject.input, [prop]: `Zq${base}`.slice(0, base.length) });
        await create({ ...subject.input, [prop]: base });
        const page = await useCases().search!.execute({
          page: 1,
          perPage: 20,
          sort: 'created_at' as F,
          order: 'asc',
          q: 'zQ',
        });
        expect(page.items.map((e) => e.id)).to.deep.equal([hit.id]);
        expect(page.total).to.equal(1);
      });
    }

    it('updates only the fields given, bumping the version and updatedAt, and stores it', async () => {
      const created = await create();
      clock.advance(5_000);
      const updated = await update(created.id, subject.changes);
      const later = new Date(START.getTime() + 5_000);
      expect(updated.toProps()).to.deep.equal({
        ...created.toProps(),
        ...subject.changes,
        version: 2,
        updatedAt: later,
      });
      expect((await get(created.id)).toProps()).to.deep.equal(updated.toProps());
      const untouched = await update(created.id, {});
      expect(untouched.toProps()).to.deep.equal(updated.toProps());
    });

    for (const invalid of subject.invalid) {
      it(`refuses to update ${invalid.prop} to ${JSON.stringify(invalid.value)?.slice(0, 40) ?? String(invalid.value)}, changing nothing`, async () => {
        const created = await create();
        expectViolation(
          await rejectionOf(update(created.id, { [invalid.prop]: invalid.value })),
          invalid.field,
          invalid.message,
        );
        expect((await get(created.id)).toProps()).to.deep.equal(created.toProps());
      });
    }

    it('updates and deletes only at an expected version (If-Match): PRECONDITION_FAILED otherwise, nothing written', async () => {
      const created = await create();
      expect((await update(created.id, subject.changes, [1])).version).to.equal(2);
      for (const attempt of [update(created.id, subject.input, [1]), remove(created.id, [1])]) {
        const error = await rejectionOf(attempt);
        expect(error).to.be.instanceOf(subject.versionMismatch);
        expect(error).to.include({ code: 'PRECONDITION_FAILED', detail: `id: ${created.id}` });
      }
      expect((await get(created.id)).version).to.equal(2);
      await remove(created.id, [2]);
      expect(await rejectionOf(get(created.id))).to.be.instanceOf(subject.notFound);
    });

    it('deletes, and the row is gone', async () => {
      const created = await create();
      await remove(created.id);
      expect(await rejectionOf(get(created.id))).to.be.instanceOf(subject.notFound);
      expect(await rejectionOf(remove(created.id))).to.be.instanceOf(subject.notFound);
      expect((await list()).total).to.equal(0);
    });
  });
}
