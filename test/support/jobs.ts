import type { JobAdmin } from '../../src/application/ports/Jobs.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until none of the stored jobs is left to run (waiting, active or waiting for a retry),
 * seen twice in a row in one reading of all of them — not one reading per state, between which a
 * job may move (`account.link` queues `mail.send` as it completes) — then `beatMs` more (for the
 * SMTP server to take a mail, a span to end). Gives up quietly after about ten seconds.
 */
export async function jobsSettled(jobs: JobAdmin, beatMs = 100): Promise<void> {
  for (let tries = 0, quiet = 0; tries < 200 && quiet < 2; tries += 1) {
    const { items } = await jobs.list({ page: 1, perPage: 100 });
    quiet = items.some((job) => job.state !== 'completed' && job.state !== 'failed') ? 0 : quiet + 1;
    await sleep(50);
  }
  await sleep(beatMs);
}
