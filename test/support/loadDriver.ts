/**
 * A load generator in a process of its own, so the test's event loop is not the bottleneck:
 *   LOAD_TOKEN=… node --import tsx test/support/loadDriver.ts <url> <connections> <seconds> [<requests per second>]
 * GET, or — with LOAD_BODY set — POST of that JSON body. Prints one JSON line: answers by status,
 * connection errors, timeouts and the answers' latency.
 */
import autocannon from 'autocannon';

const [url = '', connections = '16', seconds = '10', rate] = process.argv.slice(2);
const body = process.env.LOAD_BODY;
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  ...(rate ? { overallRate: Number(rate) } : {}),
  ...(body === undefined ? {} : { method: 'POST' as const, body }),
  headers: {
    ...(process.env.LOAD_TOKEN ? { authorization: `Bearer ${process.env.LOAD_TOKEN}` } : {}),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  },
  timeout: 30,
});
const byStatus: Record<string, number> = {};
for (const [status, stats] of Object.entries(result.statusCodeStats ?? {}))
  byStatus[status] = (stats as { count: number }).count;
const { p50, p99, max } = result.latency;
const figures = {
  by_status: byStatus,
  errors: result.errors,
  timeouts: result.timeouts,
  resets: result.resets ?? 0,
  latency_ms: { p50, p99, max },
};
process.stdout.write(`${JSON.stringify(figures)}\n`);
