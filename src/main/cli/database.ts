import type { StoredRule } from '../infrastructure/accessPolicy.js';
import { announceAccessPolicyChange, resetAccessPolicy } from '../infrastructure/accessPolicy.js';
import { loadConfigOrExit, noArguments, withDatabase, type Command } from './command.js';

/** `migrate`: the pending migrations, applied. */
export const migrate: Command = {
  summary: 'apply pending database migrations and exit',
  usage: 'migrate',
  async run(args) {
    noArguments('migrate', args);
    const config = loadConfigOrExit();
    const { applied, display } = await withDatabase(config, { migrate: true }, async ({ database, migrated }) => ({
      applied: migrated,
      display: database.target.display,
    }));
    process.stdout.write(
      applied.length === 0
        ? `no pending migrations (${display})\n`
        : `applied ${applied.length} migration(s) to ${display}: ${applied.join(', ')}\n`,
    );
    return 0;
  },
};

/** A rule as a line of policy.csv. */
const csvLine = (rule: StoredRule): string => [rule.kind, ...rule.values].join(', ');

/** `policies:reset`: the database's access rules made those of `access.policy`, and running instances told. */
export const policiesReset: Command = {
  summary: 'replace the access rules in the database by those of access.policy (policy/policy.csv)',
  usage: 'policies:reset',
  async run(args) {
    noArguments('policies:reset', args);
    const config = loadConfigOrExit();
    const { removed, added, display } = await withDatabase(config, {}, async ({ database }) => ({
      ...(await resetAccessPolicy(config, database)),
      display: database.target.display,
    }));
    const source = `${config.access.policy} into ${display}`;
    process.stdout.write(
      removed.length + added.length === 0
        ? `access rules already match ${source}: nothing replaced\n`
        : `reset access rules from ${source}: removed ${removed.length}, added ${added.length}\n` +
            [
              ...removed.map((rule) => `  removed: ${csvLine(rule)}\n`),
              ...added.map((rule) => `  added:   ${csvLine(rule)}\n`),
            ].join(''),
    );
    if (!config.redis.url) {
      process.stdout.write('no redis.url configured: running instances load the rules when they restart\n');
      return 0;
    }
    try {
      const heard = await announceAccessPolicyChange(config.redis.url);
      process.stdout.write(`told ${heard} running instance(s) through Redis to reload the rules\n`);
    } catch (error) {
      process.stderr.write(
        `portico: redis: could not announce the reset (${(error as Error).message}); ` +
          'running instances load the rules when they reconnect to Redis or restart\n',
      );
    }
    return 0;
  },
};
