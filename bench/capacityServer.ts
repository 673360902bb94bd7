/**
 * The service as bench/capacity.ts measures it: started in this process from the SVC_* environment
 * (as `npm start` does), answering its parent over IPC with what the process has spent so far — CPU
 * time (`process.cpuUsage`, every thread) and, when tracing is on, the database statements and
 * their time, counted from the query spans the service makes (`spanProcessor`, the tracing option
 * tests use; `tracing.otlp_endpoint` only turns tracing on, nothing is exported).
 *   node --import tsx bench/capacityServer.ts   (spawned with an IPC channel)
 */
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { readConfig } from '../src/main/config/readConfig.js';
import { startService } from '../src/main/wiring/service.js';

/** Counts the query spans (`db select`, `db insert`…) and the request spans. */
class StatementCounter implements SpanProcessor {
  statements = 0;
  statementUs = 0;
  requests = 0;
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    if (span.kind === SpanKind.SERVER) this.requests += 1;
    else if (span.kind === SpanKind.CLIENT && span.name.startsWith('db ')) {
      this.statements += 1;
      this.statementUs += span.duration[0] * 1e6 + span.duration[1] / 1e3;
    }
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** What the parent reads: totals since start-up. */
export interface Spent {
  cpuUs: number;
  statements: number;
  statementUs: number;
  requests: number;
}

const loaded = readConfig();
if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
const counter = new StatementCounter();
const service = await startService(loaded.config, { spanProcessor: counter });
process.on('message', (message) => {
  if (message === 'spent') {
    const cpu = process.cpuUsage();
    const spent: Spent = {
      cpuUs: cpu.user + cpu.system,
      statements: counter.statements,
      statementUs: counter.statementUs,
      requests: counter.requests,
    };
    process.send!({ spent });
  } else if (message === 'stop') void service.stop().then(() => process.exit(0));
});
process.send!({ ready: service.url });
