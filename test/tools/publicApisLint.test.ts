import { expect } from 'chai';
import { ESLint } from 'eslint';

/**
 * `npm run lint` refuses what reaches past a library's public API in `src/` (ADR
 * 26): deep imports into driver and ORM packages, and underscore members. Checked on snippets
 * linted as if they were a file of the service.
 */
describe('lint: public APIs only in src/', function () {
  this.timeout(60_000);
  const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
  const filePath = 'src/adapters/outbound/mikroorm/like.ts';
  const messagesOf = async (code: string): Promise<string[]> => {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? []).filter((m) => m.ruleId?.startsWith('no-restricted')).map((m) => m.message);
  };

  for (const [what, code] of [
    ['a private field of a driver object', 'export const f = (c: { stream: object }) => (c as any).__knex__disposed;'],
    ['a Node internal', 'export const f = (s: object) => (s as { _httpMessage?: unknown })._httpMessage;'],
    ['an underscore member by computed name', "export const f = (c: Record<string, unknown>) => c['_ending'];"],
    ['a deep import into knex', "export { default } from 'knex/lib/client.js';"],
    ['a deep import into pg', "export { default } from 'pg/lib/client.js';"],
    ['a deep import into MikroORM', "export { Connection } from '@mikro-orm/core/connections/Connection.js';"],
  ] as const) {
    it(`refuses ${what}`, async () => {
      expect(await messagesOf(code)).to.have.length.greaterThan(0);
    });
  }

  it("allows the public API, and knex's documented query-event uid", async () => {
    const code = [
      "import pg from 'pg';",
      "import { MikroORM } from '@mikro-orm/core';",
      'export const a = (e: { __knexQueryUid?: string }) => e.__knexQueryUid;',
      "export const b = (c: pg.Client) => c.query({ text: 'select 1', values: [] });",
      'export const d = MikroORM;',
    ].join('\n');
    expect(await messagesOf(code)).to.deep.equal([]);
  });
});
