import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

/** Fetches a service's metrics page: its text after checking it is 200 in the Prometheus text format. */
export async function scrape(metricsUrl: string | undefined): Promise<string> {
  expect(metricsUrl, 'the service has a metrics listener').to.be.a('string');
  const response = await fetch(metricsUrl!);
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** Every sample line of the scrape whose metric name is exactly `name`. */
export function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

/**
 * The value of the sample `name{labels}` (labels in any order, all of them given), or 0 when
 * the series does not exist yet.
 */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  for (const line of samples(text, name)) {
    const match = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const found = new Map([...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (found.size === wanted.length && wanted.every(([k, v]) => found.get(k) === v)) return Number(match[2]);
  }
  return 0;
}

/** Where promtool is, or undefined. */
export function promtool(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** Runs `promtool check metrics` on `text`; throws with promtool's complaints when it finds any. */
export function promtoolCheck(binary: string, text: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'portico-promtool-'));
  try {
    const file = join(dir, 'scrape.txt');
    writeFileSync(file, text);
    execFileSync('sh', ['-c', `"${binary}" check metrics < "${file}"`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool check metrics failed:\n${stdout ?? ''}${stderr ?? ''}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
