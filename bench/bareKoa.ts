/**
 * The yardstick: a bare Koa app answering a fixed JSON body the size of a product response.
 *   node --import tsx bench/bareKoa.ts <port>
 */
import { createServer } from 'node:http';
import Koa from 'koa';

const body = {
  success: true,
  data: {
    id: '3b241101-e2bb-4255-8caf-4136c566a962',
    name: 'Benchmark product 0001',
    price: 19.99,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  },
};

const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
const handle = app.callback();
const server = createServer((req, res) => {
  void handle(req, res);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
