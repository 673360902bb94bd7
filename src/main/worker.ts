// `npm run worker` (in production `node dist/src/main/worker.js`): the service as a job worker —
// `jobs.mode: worker`, whatever the configuration says: it runs background jobs and serves only the
// health paths (on `server.port`), so workers scale apart from the web tier (docs/jobs.md).
process.env.SVC_JOBS_MODE = 'worker';
await import('./server.js');
