import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { childEnv } from '../support/process.js';
import { ScratchCopy } from '../tools/generate/scratch.js';

/** Waits until `output()` shows the `count`-th "listening on" line and returns its address. */
function listening(output: () => string, count: number, timeoutMs: number, exited: () => boolean): Promise<string> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const urls = [...output().matchAll(/listening on (http:\/\/\S+)/g)].map((m) =>
        m[1]!.replace('localhost', '127.0.0.1'),
      );
      if (urls.length >= count) {
        clearInterval(poll);
        resolve(urls[count - 1]!);
      } else if (exited() || Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(
          new Error(
            `no "listening on" line number ${count} (${exited() ? 'npm run dev exited' : `${timeoutMs} ms`}):\n${output()}`,
          ),
        );
      }
    }, 100);
  });
}

describe('npm run dev (README: Running in production)', function () {
  this.timeout(120_000);
  let copy: ScratchCopy;
  let child: ChildProcess | undefined;

  before(async () => {
    copy = await ScratchCopy.of(process.cwd());
  });
  after(() => {
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    copy?.dispose();
  });

  it('serves from the TypeScript sources and restarts when a source file changes', async () => {
    let out = '';
    child = spawn('npm', ['run', 'dev'], {
      cwd: copy.root,
      env: childEnv({
        SVC_SERVER_HOST: '127.0.0.1',
        SVC_SERVER_PORT: '0',
        SVC_METRICS_PORT: '0',
        SVC_DATABASE_URL: 'sqlite::memory:',
        SVC_LOG_LEVEL: 'warn',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    let exited = false;
    child.on('close', () => (exited = true));

    const first = await listening(
      () => out,
      1,
      60_000,
      () => exited,
    );
    expect((await fetch(`${first}/health/live`)).status).to.equal(200);

    appendFileSync(copy.path('src/main/server.ts'), '\n// touched by test/deploy/dev.test.ts\n');
    const second = await listening(
      () => out,
      2,
      60_000,
      () => exited,
    );
    expect((await fetch(`${second}/health/live`)).status).to.equal(200);
    expect(out).to.not.match(/^\s+at /m);
  });
});
