// `npm run worker` (in production `node dist/src/main/worker.js`): the service as a job worker,
// whatever `jobs.mode` the configuration says — it runs background jobs and serves only the health
// paths (on `server.port`), so workers scale apart from the web tier (docs/jobs.md).
import { serve } from './wiring/serve.js';

await serve({ jobs: 'worker' });
