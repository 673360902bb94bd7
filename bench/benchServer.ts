/**
 * The service as `npm start` starts it (the SVC_* environment), serving the bench's cached resource
 * (bench/cachedProducts.ts) beside the module list: for the table's "GET by id, cached" rows. Prints
 * the line bench/run.ts waits for; stops on SIGTERM.
 *   node --import tsx bench/benchServer.ts
 */
import { readConfig } from '../src/main/config/readConfig.js';
import { startService } from '../src/main/wiring/service.js';
import { BENCH_MODULES } from './cachedProducts.js';

const loaded = readConfig();
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
const service = await startService(loaded.config, { modules: BENCH_MODULES });
process.stdout.write(`Portico listening on ${service.url}\n`);
process.once('SIGTERM', () => void service.stop().then(() => process.exit(0)));
