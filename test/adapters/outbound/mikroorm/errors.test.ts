import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/core';
import {
  guarded,
  isStorageFull,
  onDatabaseFailure,
  storageFullOf,
  storageWritable,
} from '../../../../src/adapters/outbound/mikroorm/errors.js';
import { ServiceUnavailableError, StorageFullError } from '../../../../src/domain/shared/DomainError.js';
import { EmailAlreadyRegisteredError } from '../../../../src/domain/user/UserErrors.js';

/** A driver error as the drivers throw them: a message and a `code`. */
const driverError = (message: string, code?: string): Error =>
  Object.assign(new Error(message), code === undefined ? {} : { code });

async function outcome(error: Error, orm = {} as MikroORM): Promise<unknown> {
  try {
    await guarded(orm, () => Promise.reject(error));
    return 'resolved';
  } catch (thrown) {
    return thrown;
  }
}

describe('MikroORM adapter: classifying driver errors', () => {
  for (const [what, error] of [
    ["SQLite's SQLITE_FULL", driverError('SQLITE_FULL: database or disk is full', 'SQLITE_FULL')],
    [
      "PostgreSQL's disk_full (53100)",
      driverError('could not extend file "base/16384/16385": No space left on device', '53100'),
    ],
  ] as const) {
    it(`${what} is 503 storage is full, and is remembered until a write works again`, async () => {
      const orm = {} as MikroORM;
      const thrown = await outcome(error, orm);
      expect(thrown).to.be.instanceOf(StorageFullError);
      expect(thrown).to.be.instanceOf(ServiceUnavailableError); // answered 503 SERVICE_UNAVAILABLE
      expect((thrown as Error).message).to.equal('storage is full');
      expect(isStorageFull(error)).to.equal(true);
      expect(storageFullOf(orm)).to.equal(true);
      storageWritable(orm);
      expect(storageFullOf(orm)).to.equal(false);
    });
  }

  for (const [what, error] of [
    ['a refused connection', driverError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection ended under a query (query timeout)', driverError('Connection terminated unexpectedly')],
    [
      'a statement canceled by statement_timeout (57014)',
      driverError('canceling statement due to statement timeout', '57014'),
    ],
    ['a pool with no free connection', driverError('Knex: Timeout acquiring a connection. The pool is probably full.')],
    [
      'the same through the ORM, which puts the statement in front',
      driverError('select 1 - Knex: Timeout acquiring a connection. The pool is probably full.'),
    ],
    ['a query past the driver’s query_timeout', driverError('Query read timeout')],
    // pg's own connectionTimeoutMillis destroys the socket with this error (seen with a frozen server under load).
    ['a connect that timed out in the pg client', driverError('timeout expired')],
    ['a query past the query timeout', driverError('database query timed out', 'ETIMEDOUT')],
    [
      'a query sent on a connection that was ended',
      driverError('Client has encountered a connection error and is not queryable'),
    ],
  ] as const) {
    it(`${what} is 503 database unavailable`, async () => {
      const thrown = await outcome(error);
      expect(thrown).to.be.instanceOf(ServiceUnavailableError);
      expect((thrown as Error).message).to.equal('database unavailable');
    });
  }

  it('any other error passes through unchanged (a bug is a 500, not a 503)', async () => {
    const error = driverError('syntax error at or near "selec"', '42601');
    expect(await outcome(error)).to.equal(error);
    expect(isStorageFull(error)).to.equal(false);
  });

  it('storage state is per database', async () => {
    const full = {} as MikroORM;
    const other = {} as MikroORM;
    await outcome(driverError('database or disk is full', 'SQLITE_FULL'), full);
    expect(storageFullOf(full)).to.equal(true);
    expect(storageFullOf(other)).to.equal(false);
  });
});

describe('MikroORM adapter: telling the failure listener (the database errors metric)', () => {
  for (const [kind, error] of [
    ['timeout', driverError('database query timed out', 'ETIMEDOUT')],
    ['timeout', driverError('canceling statement due to statement timeout', '57014')],
    ['timeout', driverError('Knex: Timeout acquiring a connection. The pool is probably full.')],
    ['timeout', driverError('Query read timeout')],
    ['unavailable', driverError('insert into products (id) values ($1) - Connection terminated unexpectedly')],
    ['unavailable', driverError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['unavailable', driverError('terminating connection due to administrator command', '57P01')],
    ['storage_full', driverError('SQLITE_FULL: database or disk is full', 'SQLITE_FULL')],
    ['other', driverError('syntax error at or near "selec"', '42601')],
  ] as const) {
    it(`${(error as Error).message} is told as ${kind}`, async () => {
      const orm = {} as MikroORM;
      const told: string[] = [];
      onDatabaseFailure(orm, (failure) => told.push(failure));
      await outcome(error, orm);
      expect(told).to.deep.equal([kind]);
    });
  }

  it('a domain error the operation chose to throw (e-mail taken) is not a database failure', async () => {
    const orm = {} as MikroORM;
    const told: string[] = [];
    onDatabaseFailure(orm, (failure) => told.push(failure));
    await outcome(new EmailAlreadyRegisteredError(), orm);
    expect(await guarded(orm, () => Promise.resolve(1))).to.equal(1);
    expect(told).to.deep.equal([]);
  });
});
