import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { InMemoryResourceRepository } from '../../../src/adapters/outbound/memory/InMemoryResourceRepository.js';
import { createResourceTable, tableOf } from '../../../src/adapters/outbound/mikroorm/resourceTable.js';
import {
  decimalFromDriver,
  SqlResourceRepository,
} from '../../../src/adapters/outbound/mikroorm/SqlResourceRepository.js';
import { addDecimals } from '../../../src/domain/shared/Decimal.js';
import { ConflictError } from '../../../src/domain/shared/DomainError.js';
import type { ListQuery, Page } from '../../../src/domain/shared/Page.js';
import {
  declareResource,
  entityOf,
  field,
  type PropsOf,
  type SortFieldOf,
} from '../../../src/domain/shared/resource.js';
import { SqlDatabaseFixture, sqlTargets } from './contracts/databases.js';

/** A declared resource with exact decimals: money at scale 2, a whole-number decimal, an optional one at scale 4. */
const PAYMENT = declareResource({
  name: 'test_payment',
  plural: 'test_payments',
  fields: {
    label: field.string(1, 40),
    amount: field.decimal(12, 2),
    units: field.decimal(15, 0).optional(),
    rate: field.decimal(6, 4).optional(),
  },
});
class Payment extends entityOf(PAYMENT) {}
type Sort = SortFieldOf<typeof PAYMENT.fields>;

interface Repository {
  add(entity: Payment): Promise<void>;
  findById(id: string): Promise<Payment | undefined>;
  list(query: ListQuery<Sort>): Promise<Page<Payment>>;
}

const T0 = new Date('2026-01-02T03:04:05.678Z');
const id = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const payment = (n: number, amount: string, more: Partial<PropsOf<typeof PAYMENT.fields>> = {}) =>
  Payment.create({ id: id(n), label: `p${n}`, amount, ...more }, T0);
const amounts = (page: Page<Payment>) => page.items.map((p) => p.amount);
const listBy = (repository: Repository, sort: Sort, order: 'asc' | 'desc') =>
  repository.list({ page: 1, perPage: 50, sort, order });

/** What every store must do with decimals; `sum` adds the column in the store itself (SQL's `sum`), if it can. */
function decimalContract(name: string, open: () => Promise<{ repository: Repository; sum?: () => Promise<string> }>) {
  describe(name, () => {
    it('keeps "0.10" and "0.20" exactly, and they sum to "0.30"', async () => {
      const { repository, sum } = await open();
      await repository.add(payment(1, '0.10'));
      await repository.add(payment(2, '0.20'));
      const [a, b] = [await repository.findById(id(1)), await repository.findById(id(2))];
      expect([a?.amount, b?.amount]).to.deep.equal(['0.10', '0.20']);
      expect(addDecimals([a!.amount, b!.amount], 2)).to.equal('0.30');
      if (sum) expect(await sum()).to.equal('0.30');
    });

    it('keeps the extremes of each precision exactly (15 digits, scale 0 and 4)', async () => {
      const { repository } = await open();
      await repository.add(payment(1, '9999999999.99', { units: '999999999999999', rate: '-99.9999' }));
      await repository.add(payment(2, '-9999999999.99', { units: '-999999999999999', rate: '0.0001' }));
      const [a, b] = [await repository.findById(id(1)), await repository.findById(id(2))];
      expect([a?.amount, a?.units, a?.rate]).to.deep.equal(['9999999999.99', '999999999999999', '-99.9999']);
      expect([b?.amount, b?.units, b?.rate]).to.deep.equal(['-9999999999.99', '-999999999999999', '0.0001']);
    });

    it('sorts numerically: 9.00 before 10.00, negatives first, optional nulls last both ways', async () => {
      const { repository } = await open();
      const values = ['10.00', '9.00', '-1.50', '100.00', '0.05'];
      for (const [n, amount] of values.entries()) {
        await repository.add(payment(n + 1, amount, n < 3 ? { rate: `${n}.5000` } : {}));
      }
      expect(amounts(await listBy(repository, 'amount', 'asc'))).to.deep.equal([
        '-1.50',
        '0.05',
        '9.00',
        '10.00',
        '100.00',
      ]);
      expect(amounts(await listBy(repository, 'amount', 'desc'))).to.deep.equal([
        '100.00',
        '10.00',
        '9.00',
        '0.05',
        '-1.50',
      ]);
      const rates = async (order: 'asc' | 'desc') => (await listBy(repository, 'rate', order)).items.map((p) => p.rate);
      expect(await rates('asc')).to.deep.equal(['0.5000', '1.5000', '2.5000', null, null]);
      expect(await rates('desc')).to.deep.equal(['2.5000', '1.5000', '0.5000', null, null]);
    });
  });
}

describe('exact decimals in every store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-decimals-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  decimalContract('in memory', async () => ({
    repository: new InMemoryResourceRepository<Payment, PropsOf<typeof PAYMENT.fields>, Sort>({
      fromRow: (props) => Payment.restore(props),
      toRow: (p) => p.toProps(),
      declaration: PAYMENT,
      stillReferenced: (paymentId) => new ConflictError('still referenced', paymentId),
    }),
  }));

  const TABLE = tableOf(Payment, (paymentId) => new ConflictError('still referenced', paymentId));
  for (const target of sqlTargets(dir, 'decimals.sqlite')) {
    describe(`on ${target.name}`, function () {
      const database = new SqlDatabaseFixture(target);
      const knex = () => (database.db.orm.em.getConnection() as AbstractSqlConnection).getKnex();
      const execute = (sql: string) => database.db.orm.em.getConnection().execute(sql);
      before(async function () {
        const skipped = await database.open();
        if (skipped !== undefined) this.skip();
        await execute('drop table if exists test_payments');
        for (const statement of createResourceTable(knex(), TABLE)) await knex().raw(statement);
      });
      after(async () => {
        if (database.target.url()) await execute('drop table if exists test_payments').catch(() => undefined);
        await database.close();
      });

      it('stores the smallest unit as an integer on SQLite, numeric(p,s) on PostgreSQL', async () => {
        await execute('delete from test_payments');
        const repository = new SqlResourceRepository(database.db, TABLE);
        await repository.add(payment(1, '12.50', { rate: '0.0125' }));
        const [row] = (await execute('select amount, rate from test_payments')) as Record<string, unknown>[];
        if (target.name.startsWith('PostgreSQL')) {
          expect(row).to.deep.equal({ amount: '12.50', rate: '0.0125' });
          const [type] = (await execute(
            `select format_type(atttypid, atttypmod) as type from pg_attribute
              where attrelid = 'test_payments'::regclass and attname = 'amount'`,
          )) as { type: string }[];
          expect(type?.type).to.equal('numeric(12,2)');
        } else {
          expect(row).to.deep.equal({ amount: 1250, rate: 125 });
        }
      });

      decimalContract('the SQL core', async () => {
        await execute('delete from test_payments');
        return {
          repository: new SqlResourceRepository(database.db, TABLE),
          sum: async () => {
            const [row] = (await execute('select sum(amount) as total from test_payments')) as { total: unknown }[];
            return decimalFromDriver(row?.total, 2);
          },
        };
      });
    });
  }
});
