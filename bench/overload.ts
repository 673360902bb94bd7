/**
 * The overload driver, run in its own process so that its 1,000 sockets and its CPU do not share
 * an event loop with the `/health/live` probes: autocannon on one URL, the figures on stdout as JSON.
 *   BENCH_TOKEN=… node --import tsx bench/overload.ts <url> <connections> <duration-seconds>
 */
import autocannon from 'autocannon';

const [url = '', connections = '1000', duration = '20'] = process.argv.slice(2);
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(duration),
  headers: process.env.BENCH_TOKEN ? { authorization: `Bearer ${process.env.BENCH_TOKEN}` } : {},
  // Long enough to see the true longest wait rather than autocannon's 10 s cut-off.
  timeout: 60,
});
const byStatus: Record<string, number> = {};
for (const [status, stats] of Object.entries(result.statusCodeStats ?? {}))
  byStatus[status] = (stats as { count: number }).count;
process.stdout.write(
  `${JSON.stringify({
    answers: result.requests.total,
    rps: result.requests.average,
    by_status: byStatus,
    errors: result.errors,
    timeouts: result.timeouts,
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  })}\n`,
);
