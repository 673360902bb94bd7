// `npm run cli -- <command>` (in production `node dist/src/main/cli.js`): the operator's commands —
// users:create, migrate, policies:reset, jobs:list, jobs:retry, config:docs, openapi (`--help`).
import { runCli } from './cli/run.js';

process.exitCode = await runCli(process.argv.slice(2));
