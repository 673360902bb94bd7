import { expect } from 'chai';
import { safeError } from '../../src/main/infrastructure/logger.js';

describe('logger error serializer', () => {
  it('replaces the values of an SQL statement quoted in an error message and stack', () => {
    const error = new Error(
      "insert into `users` (`email`, `password_hash`) values ('ada@example.com', '$2b$04$secret''hash') - unrecognized token",
    );
    const out = JSON.stringify(safeError(error));
    expect(out).not.to.include('ada@example.com');
    expect(out).not.to.include('secret');
    expect(out).to.include("values ('?', '?') - unrecognized token");
    expect(out).to.include('"type":"Error"');
  });

  it('leaves messages without SQL literals as they are', () => {
    expect((safeError(new Error('connect ECONNREFUSED 127.0.0.1:5432')) as { message: string }).message).to.equal(
      'connect ECONNREFUSED 127.0.0.1:5432',
    );
  });
});
