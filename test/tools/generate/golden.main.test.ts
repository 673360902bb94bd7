import { expect } from 'chai';
import { moduleListEdit, policyEdit } from '../../../tools/generate/templates/main/edits.js';
import { committed, customerModel, invoiceModel, productModel } from './models.js';

/** Today's module list and policy without products: their import and their entry; their four rules. */
const withoutProducts = {
  moduleList: (text: string) =>
    text
      .replace("import { Product } from '../../domain/product/Product.js';\n", '')
      .replace(/,\s*resourceModule\(Product\)|\n\s*resourceModule\(Product\),/, ''),
  policy: (text: string) =>
    text
      .split('\n')
      .filter((line) => !line.includes('/api/v1/products'))
      .join('\n'),
};

describe('generate: main templates', () => {
  describe('the golden rule', () => {
    it("adding products to today's module list without them gives today's module list", () => {
      const today = committed('src/main/modules/index.ts');
      const without = withoutProducts.moduleList(today);
      expect(without).not.to.match(/\bProduct\b/);
      expect(moduleListEdit(productModel(), without)).to.equal(today);
    });

    it("adding products to today's policy without them gives today's policy", () => {
      const today = committed('policy/policy.csv');
      const without = withoutProducts.policy(today);
      expect(without).not.to.include('products');
      expect(policyEdit(productModel(), without)).to.equal(today);
    });
  });

  describe('the module list edit', () => {
    it('imports the entity in path order and appends resourceModule(<Class>) to MODULES, naming no migration; a second run changes nothing', () => {
      const once = moduleListEdit(invoiceModel(), committed('src/main/modules/index.ts'));
      expect(once).to.include(
        [
          "import { Invoice } from '../../domain/invoice/Invoice.js';",
          "import { Product } from '../../domain/product/Product.js';",
          "import { access } from './access.js';",
        ].join('\n'),
      );
      expect(once).to.match(/resourceModule\(Product\),\n {2}resourceModule\(Invoice\),\n\];\n$/);
      expect(once.replace(/\/\*\*[\s\S]*?\*\//g, '')).not.to.match(/Migration|migrations/);
      expect(moduleListEdit(invoiceModel(), once)).to.equal(once);
    });

    it('two resources are appended in the order they were generated: the referenced one first', () => {
      const both = moduleListEdit(
        invoiceModel(),
        moduleListEdit(customerModel(), committed('src/main/modules/index.ts')),
      );
      expect(both).to.include(
        '  resourceModule(Product),\n  resourceModule(Customer),\n  resourceModule(Invoice),\n];',
      );
      expect(both.indexOf("from '../../domain/customer/Customer.js'")).to.be.lessThan(
        both.indexOf("from '../../domain/invoice/Invoice.js'"),
      );
    });

    it('keeps a list on one line while it fits, lays it out one entry a line when not, and imports resourceModule when missing', () => {
      const short =
        "import { health } from './health.js';\n\nexport const MODULES: readonly FeatureModule[] = [health];\n";
      const one = moduleListEdit(customerModel(), short);
      expect(one).to.include('export const MODULES: readonly FeatureModule[] = [health, resourceModule(Customer)];');
      expect(one.split('\n').slice(0, 3)).to.deep.equal([
        "import { Customer } from '../../domain/customer/Customer.js';",
        "import { health } from './health.js';",
        "import { resourceModule } from './resource.js';",
      ]);
      const two = moduleListEdit(invoiceModel(), one);
      expect(two).to.include(
        'export const MODULES: readonly FeatureModule[] = [health, resourceModule(Customer), resourceModule(Invoice)];',
      );
      const long = moduleListEdit(customerModel(), committed('src/main/modules/index.ts'));
      expect(long).to.include(
        ['export const MODULES: readonly FeatureModule[] = [', '  health,', '  auth,'].join('\n'),
      );
      expect(long).to.include('  resourceModule(Product),\n  resourceModule(Customer),\n];');
    });

    it('refuses a module list it cannot find', () => {
      expect(() => moduleListEdit(invoiceModel(), 'export const OTHER = [];\n')).to.throw(/MODULES list was not found/);
    });
  });

  describe('the policy edit', () => {
    it("adds user GET and moderator .* on the collection, item and nested list, among each role's rules, g lines last", () => {
      const edited = policyEdit(invoiceModel(), committed('policy/policy.csv'));
      expect(edited.split('\n')).to.deep.equal([
        'p, admin, /api/v1/*, .*',
        'p, admin, /api/v1/admin/*, .*',
        'p, user, /api/v1/customers/{id}/invoices, GET',
        'p, user, /api/v1/invoices, GET',
        'p, user, /api/v1/invoices/{id}, GET',
        'p, user, /api/v1/products, GET',
        'p, user, /api/v1/products/{id}, GET',
        'p, user, /api/v1/profile, GET|PUT',
        'p, moderator, /api/v1/customers/{id}/invoices, .*',
        'p, moderator, /api/v1/invoices, .*',
        'p, moderator, /api/v1/invoices/{id}, .*',
        'p, moderator, /api/v1/products, .*',
        'p, moderator, /api/v1/products/{id}, .*',
        'g, admin, moderator',
        'g, moderator, user',
        '',
      ]);
    });

    it('skips a rule the role already has for that path, whatever its action, and is idempotent', () => {
      const start = 'p, admin, /api/v1/*, .*\np, user, /api/v1/invoices, GET|POST\ng, moderator, user\n';
      const edited = policyEdit(invoiceModel(), start);
      expect(edited).to.equal(
        [
          'p, admin, /api/v1/*, .*',
          'p, user, /api/v1/customers/{id}/invoices, GET',
          'p, user, /api/v1/invoices, GET|POST',
          'p, user, /api/v1/invoices/{id}, GET',
          'p, moderator, /api/v1/customers/{id}/invoices, .*',
          'p, moderator, /api/v1/invoices, .*',
          'p, moderator, /api/v1/invoices/{id}, .*',
          'g, moderator, user',
          '',
        ].join('\n'),
      );
      expect(policyEdit(invoiceModel(), edited)).to.equal(edited);
    });

    it('a multi-word resource gets its kebab-case paths', () => {
      const m = { ...invoiceModel(), names: { ...invoiceModel().names, pluralKebab: 'purchase-orders' } };
      expect(policyEdit(m, 'g, moderator, user\n')).to.equal(
        [
          'p, user, /api/v1/customers/{id}/purchase-orders, GET',
          'p, user, /api/v1/purchase-orders, GET',
          'p, user, /api/v1/purchase-orders/{id}, GET',
          'p, moderator, /api/v1/customers/{id}/purchase-orders, .*',
          'p, moderator, /api/v1/purchase-orders, .*',
          'p, moderator, /api/v1/purchase-orders/{id}, .*',
          'g, moderator, user',
          '',
        ].join('\n'),
      );
    });
  });
});
