import { startupFailure } from '../wiring/startupFailure.js';
import { UsageError, type Command } from './command.js';
import { migrate, policiesReset } from './database.js';
import { configDocs, openapi } from './documents.js';
import { jobsList, jobsRetry } from './jobs.js';
import { usersCreate } from './users.js';

/** Every command, by name, in the order `--help` lists them. */
const COMMANDS: Readonly<Record<string, Command>> = {
  'users:create': usersCreate,
  migrate,
  'policies:reset': policiesReset,
  'jobs:list': jobsList,
  'jobs:retry': jobsRetry,
  'config:docs': configDocs,
  openapi,
};

function help(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(76)} ${c.summary}`);
  return `usage: npm run cli -- <command> [options]\n\ncommands:\n${lines.join('\n')}\n  ${'--help'.padEnd(76)} show this help\n`;
}

/** Runs the command `argv` names; answers the exit code (0 done, 1 failed, 2 bad usage). */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`portico: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`portico: ${error.message}\nusage: npm run cli -- ${command.usage}\n`);
      return 2;
    }
    const known = startupFailure(error);
    process.stderr.write(
      `portico: ${known ?? `${name} failed: ${error instanceof Error ? error.message : String(error)}`}\n`,
    );
    return 1;
  }
}
