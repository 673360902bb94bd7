/**
 * A load generator in a process of its own, so the test's event loop is not the bottleneck:
 *   LOAD_TOKEN=… node --import tsx test/support/loadDriver.ts <url> <connections> <seconds> [<requests per second>]
 * Prints one JSON line: answers by status, connection errors and timeouts.
 */
import autocannon from 'autocannon';

const [url = '', connections = '16', seconds = '10', rate] = process.argv.slice(2);
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  ...(rate ? { overallRate: Number(rate) } : {}),
  headers: process.env.LOAD_TOKEN ? { authorization: `Bearer ${process.env.LOAD_TOKEN}` } : {},
  timeout: 30,
});
const byStatus: Record<string, number> = {};
for (const [status, stats] of Object.entries(result.statusCodeStats ?? {}))
  byStatus[status] = (stats as { count: number }).count;
process.stdout.write(
  `${JSON.stringify({ by_status: byStatus, errors: result.errors, timeouts: result.timeouts, resets: result.resets ?? 0 })}\n`,
);
