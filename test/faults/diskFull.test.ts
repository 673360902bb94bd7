import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { startService, type RunningService } from '../../src/main/wiring/service.js';
import { accountWithRole, Api, type Account, type ApiResponse } from '../support/api.js';
import { testConfig } from '../support/config.js';
import { SmallFileSystem, waitFor } from '../support/faults.js';
import { silentLogger } from '../support/logger.js';
import { scrape, valueOf } from '../support/metrics.js';
import { PRODUCT_BODY } from '../support/resources/productBodies.js';

/** Writes zeros into `file` until the file system has no room left. */
function fillUp(file: string): void {
  const chunk = Buffer.alloc(64 * 1024);
  const fd = openSync(file, 'w');
  try {
    for (;;) {
      try {
        writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw error;
      }
    }
    // The last partial chunk: fill the remaining bytes too.
    for (const size of [4096, 512, 1]) {
      try {
        for (;;) writeSync(fd, chunk.subarray(0, size));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The fault suite, storage part (README: the fault suite): the SQLite database's file system fills up.
 * Writes answer 503 `storage is full` (never 500), reads go on, readiness is down while it
 * lasts, and writes work again by themselves once space is freed.
 */
describe('faults: the database volume is full', function () {
  this.timeout(60_000);
  let volume: SmallFileSystem | undefined;
  let service: RunningService | undefined;
  let api: Api;
  let moderator: Account;
  let filler: string;

  before(async function () {
    const mounted = await SmallFileSystem.mount(8 * 1024 * 1024);
    if (typeof mounted === 'string') {
      console.log(`      (skipped: ${mounted})`);
      this.skip();
    }
    volume = mounted;
    const dir = volume.dir('data');
    filler = join(volume.path, 'filler');
    service = await startService(
      testConfig({
        SVC_DATABASE_URL: `sqlite:${join(dir, 'portico.sqlite')}`,
        SVC_HEALTH_DISK_MIN_FREE_BYTES: '65536',
        SVC_AUTH_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      }),
      { logger: silentLogger() },
    );
    api = new Api(service.url);
    moderator = await accountWithRole(service, api, 'moderator');
  });

  after(async () => {
    await service?.stop();
    await volume?.unmount();
  });

  const create = (i: number): Promise<ApiResponse> =>
    api.post('/api/v1/products', {
      token: moderator.access_token,
      json: { ...PRODUCT_BODY, name: `${'p'.repeat(180)} ${i}`, price: i + 1 },
    });

  it('writes answer 503 storage is full, reads go on, readiness is down; freed, writes work again', async () => {
    expect((await create(0)).status).to.equal(201);
    expect((await api.get('/health/ready')).status).to.equal(200);
    // The disk check watches the SQLite file's directory by default: this volume.
    expect((await api.get('/health')).body).to.have.nested.property('checks.disk.status', 'up');

    fillUp(filler);

    // SQLite may still find room in pages it has; within a few writes it needs a new one.
    const answers: ApiResponse[] = [];
    for (let i = 1; i <= 200; i++) {
      const answer = await create(i);
      answers.push(answer);
      if (answer.status !== 201) break;
    }
    const refused = answers[answers.length - 1]!;
    expect(
      answers.every((a) => a.status === 201 || a.status === 503),
      answers.map((a) => a.status).join(','),
    ).to.equal(true);
    expect(refused.status).to.equal(503);
    expect(refused.body).to.deep.equal({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'storage is full' },
    });
    expect(
      valueOf(await scrape(service!.metricsUrl), 'database_errors_total', { kind: 'storage_full' }),
    ).to.be.at.least(1);
    const acknowledged = answers.filter((a) => a.status === 201).length + 1;

    const list = await api.get('/api/v1/products?per_page=100', { token: moderator.access_token });
    expect(list.status).to.equal(200);
    expect(list.body).to.have.nested.property('meta.total', acknowledged);

    const ready = await api.get('/health/ready');
    expect(ready.status).to.equal(503);
    expect(ready.body).to.have.property('status', 'down');
    expect(ready.body).to.have.nested.property('checks.database.message', 'storage is full');
    expect(ready.body).to.have.nested.property('checks.disk.status', 'down');
    expect((await api.get('/health/live')).status).to.equal(200);

    rmSync(filler);
    await waitFor(
      async () => (await api.get('/health/ready')).status === 200,
      10_000,
      'readiness after space was freed',
    );
    expect((await create(1000)).status).to.equal(201);
    const after = await api.get('/api/v1/products?per_page=1', { token: moderator.access_token });
    expect(after.body).to.have.nested.property('meta.total', acknowledged + 1);
  });
});
