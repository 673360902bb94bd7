import { expect } from 'chai';
import { BENCH_MODULES, CachedProduct, reseedCachedProducts } from '../../bench/cachedProducts.js';
import { CACHED, SCENARIOS } from '../../bench/scenarios.js';
import { Product } from '../../src/domain/product/Product.js';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { silentLogger } from '../support/logger.js';
import { aProduct } from '../support/resources/product.js';

describe("the bench's cached twin of products (bench/cachedProducts.ts)", function () {
  this.timeout(60_000);
  let service: RunningService;
  let api: Api;
  let token: string;
  const row = aProduct('5b0f2f5e-3c64-4a0e-9a43-2f7a3d5b1c01').toProps();

  before(async () => {
    service = await startService(testConfig({ SVC_AUTH_BCRYPT_COST: '4', SVC_RATE_LIMIT_ENABLED: 'false' }), {
      logger: silentLogger(),
      modules: BENCH_MODULES,
    });
    await reseedCachedProducts(service.database, [row]);
    api = new Api(service.url);
    token = (await accountWithRole(service, api, 'admin')).access_token;
  });

  after(() => service.stop());

  it('is declared cached, and products are not', () => {
    expect(CachedProduct.declaration.cached).to.equal(true);
    expect(Product.declaration.cached).to.equal(false);
  });

  it("answers the bench's cached GET by id from the cache: a write behind its back is not seen", async () => {
    const request = CACHED.request({ token, productId: row.id });
    const read = async () => {
      const response = await fetch(`${service.url}${request.path}`, { headers: request.headers ?? {} });
      expect(response.status).to.equal(200);
      return ((await response.json()) as { data: { name: string } }).data.name;
    };
    expect(await read()).to.equal(row.name);
    await service.database.sql.run('update cached_products set name = ? where id = ?', ['behind the cache', row.id]);
    expect(await read()).to.equal(row.name);
  });

  it("asks for the product scenario's path on the twin", () => {
    const ctx = { token: 't', productId: row.id };
    const product = SCENARIOS.find((s) => s.name === 'product')!.request(ctx);
    expect(CACHED.request(ctx).path).to.equal(product.path.replace('/products/', '/cached-products/'));
  });
});
