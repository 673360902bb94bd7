import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrationStampAt, readProjectState } from '../../../tools/generate/project.js';

describe('generate: the project state', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'portico-project-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const touch = (path: string, contents = '') => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), contents);
  };

  it('finds the resources of this repository (user and product), and stamps new migrations with the time', () => {
    const state = readProjectState(process.cwd(), new Date('2099-01-02T03:04:05Z'));
    expect(state.resources).to.include.members(['product', 'user']);
    expect(state.migrationStamp).to.equal('20990102T0304');
  });

  it('counts a domain folder as a resource when its <Pascal>.ts declares one, or it holds <Pascal>Repository.ts', () => {
    touch('src/domain/purchase_order/PurchaseOrder.ts', 'export const PURCHASE_ORDER = declareResource({});\n');
    touch('src/domain/user/UserRepository.ts');
    touch('src/domain/shared/Text.ts');
    touch('src/domain/health/Health.ts', 'export interface Health {}\n');
    touch('src/domain/invoice/Invoices.ts', 'export const INVOICE = declareResource({});\n');
    expect(readProjectState(root).resources).to.deep.equal(['purchase_order', 'user']);
  });

  it('takes the route words, their plurals, and every resource with its plural', () => {
    touch('src/domain/purchase_order/PurchaseOrder.ts', 'declareResource({})');
    const words = readProjectState(root).routeWords;
    for (const word of [
      'user',
      'users',
      'auth',
      'admin',
      'admins',
      'profile',
      'health',
      'graphql',
      'metrics',
      'docs',
    ]) {
      expect(words).to.include(word);
    }
    expect(words).to.include.members(['purchase_order', 'purchase_orders']);
    expect(words, 'product is taken only while it exists').not.to.include('product');
  });

  it('stamps new migrations with the UTC minute, never with a counter, whatever the legacy migrations are', () => {
    const at = new Date('2026-11-27T05:12:33.500Z');
    expect(readProjectState(root, at).migrationStamp).to.equal('20261127T0512');
    touch('src/adapters/outbound/mikroorm/migrations/Migration0001Users.ts');
    touch('src/adapters/outbound/mikroorm/migrations/Migration0007Invoices.ts');
    touch('src/adapters/outbound/mikroorm/migrations/20261126T2359_invoices_add_notes.ts');
    touch('src/adapters/outbound/mikroorm/migrations/accessRules.ts');
    expect(readProjectState(root, at).migrationStamp).to.equal('20261127T0512');
  });

  it('adds the seconds when a migration of that minute exists, and goes past the latest when the clock is behind it', () => {
    const at = new Date('2026-11-27T05:12:33.500Z');
    expect(migrationStampAt(at, ['0002', '20261127T0512'])).to.equal('20261127T051233');
    expect(migrationStampAt(at, ['20261127T051233'])).to.equal('20261127T051234');
    expect(migrationStampAt(at, ['20261127T0513'])).to.equal('20261127T051301');
    expect(migrationStampAt(at, ['20261127T0511', '20261127T051159'])).to.equal('20261127T0512');
    expect(migrationStampAt(new Date('2026-12-31T23:59:59Z'), ['20261231T235959'])).to.equal('20270101T000000');
  });
});
