import { Database, DatabaseConnectionError } from '../adapters/outbound/mikroorm/database.js';
import { readConfig } from './readConfig.js';

/** One CLI command: what it does and how it runs. Exit codes: 0 done, 1 failed, 2 bad usage. */
interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}

class UsageError extends Error {}

function loadConfigOrExit() {
  const loaded = readConfig();
  if (!loaded.ok) {
    process.stderr.write(`portico: invalid configuration\n${loaded.errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exit(1);
  }
  return loaded.config;
}

const commands: Record<string, Command> = {
  migrate: {
    summary: 'apply pending database migrations and exit',
    usage: 'migrate',
    async run(args) {
      if (args.length > 0) throw new UsageError(`migrate takes no arguments (got ${args.join(' ')})`);
      const config = loadConfigOrExit();
      const database = await Database.connect(config.database.url);
      try {
        const applied = await database.migrate();
        process.stdout.write(
          applied.length === 0
            ? `no pending migrations (${database.target.display})\n`
            : `applied ${applied.length} migration(s) to ${database.target.display}: ${applied.join(', ')}\n`,
        );
      } finally {
        await database.close();
      }
      return 0;
    },
  },
};

function help(): string {
  const lines = Object.values(commands).map((c) => `  ${c.usage.padEnd(24)} ${c.summary}`);
  return `usage: npm run cli -- <command> [options]\n\ncommands:\n${lines.join('\n')}\n  ${'--help'.padEnd(24)} show this help\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
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
    if (error instanceof DatabaseConnectionError) {
      process.stderr.write(`portico: database: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`portico: ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
