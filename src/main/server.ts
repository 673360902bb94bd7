// `npm start` (in production `node dist/src/main/server.js`): the service — the API, running jobs as
// `jobs.mode` says (docs/jobs.md).
import { serve } from './wiring/serve.js';

await serve();
