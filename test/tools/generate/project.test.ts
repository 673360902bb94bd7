import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProjectState } from '../../../tools/generate/project.js';

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

  it('finds the resources of this repository (user and product) and the next migration number', () => {
    const state = readProjectState(process.cwd());
    expect(state.resources).to.include.members(['product', 'user']);
    expect(state.nextMigrationNumber).to.be.greaterThan(2);
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

  it('numbers the next migration one past the highest Migration<NNNN>, and 1 when there is none', () => {
    expect(readProjectState(root).nextMigrationNumber).to.equal(1);
    touch('src/adapters/outbound/mikroorm/migrations/Migration0001Users.ts');
    touch('src/adapters/outbound/mikroorm/migrations/Migration0007Invoices.ts');
    touch('src/adapters/outbound/mikroorm/migrations/Migration0002Products.ts');
    touch('src/adapters/outbound/mikroorm/migrations/index.ts');
    expect(readProjectState(root).nextMigrationNumber).to.equal(8);
  });
});
