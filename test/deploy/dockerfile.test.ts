import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { copies, dockerIgnore, parseDockerfile, readRepoFile, trackedFiles, type Stage } from './dockerfile.js';

const root = process.cwd();

describe('the Dockerfile (README: Running in production)', () => {
  const stages = parseDockerfile(readRepoFile(root, 'Dockerfile'));
  const runtime = stages.at(-1)!;
  const all = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);
  const ignored = dockerIgnore(readRepoFile(root, '.dockerignore'));

  it('is multi-stage: a named build stage, then a runtime stage that copies dist from it', () => {
    expect(stages.length).to.be.at.least(2);
    const build = stages[0]!;
    expect(build.name).to.be.a('string');
    expect(all(build, 'RUN').map((r) => r.text)).to.include('npm run build');
    expect(
      all(build, 'RUN').some((r) => /^npm ci\b/.test(r.text) && !r.text.includes('--omit=dev')),
      'the build stage installs dev dependencies',
    ).to.be.true;
    expect(
      copies(runtime)
        .filter((c) => c.from === build.name)
        .map((c) => c.sources),
    ).to.deep.include(['/app/dist']);
    const fromContext = copies(runtime)
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    expect(
      fromContext,
      'the runtime stage holds the policy, the configuration defaults and the mail templates',
    ).to.include.members(['policy', 'config', 'mail']);
    expect(runtime.image).to.match(/^node:20/);
  });

  it('installs production dependencies only in the runtime stage, without the build-running install scripts', () => {
    const installs = all(runtime, 'RUN').filter((r) => /\bnpm ci\b/.test(r.text));
    expect(installs).to.have.length(1);
    expect(installs[0]!.text).to.include('--omit=dev').and.to.include('--ignore-scripts');
    expect(
      all(runtime, 'RUN')
        .map((r) => r.text)
        .join('\n'),
    ).to.not.match(/npm run build|tsc|tsx/);
  });

  it('runs as a non-root user with NODE_ENV=production, exposes 8080 and the metrics port, and starts dist with node', () => {
    const users = all(runtime, 'USER');
    expect(users, 'the runtime stage sets USER').to.not.be.empty;
    const user = users.at(-1)!.args[0]!;
    expect(user.split(':')[0]).to.not.be.oneOf(['root', '0']);
    expect(user, 'a numeric user, so Kubernetes runAsNonRoot can verify it').to.match(/^[1-9]\d*(:\d+)?$/);
    const env = all(runtime, 'ENV').map((e) => e.text);
    expect(env).to.include('NODE_ENV=production');
    const exposed = all(runtime, 'EXPOSE').flatMap((e) => e.args);
    expect(exposed).to.include('8080').and.to.include('9464');
    const cmd = all(runtime, 'CMD').at(-1)!;
    expect(cmd.text.startsWith('['), 'exec form: node is PID 1 and receives SIGTERM').to.be.true;
    expect(cmd.args).to.deep.equal(['node', 'dist/src/main/server.js']);
    expect(all(runtime, 'ENTRYPOINT')).to.be.empty;
    expect(
      stages
        .flatMap((s) => s.instructions)
        .map((i) => i.text)
        .join('\n'),
    ).to.not.include('tsx');
  });

  it('copies only files that exist in the repository and that .dockerignore lets into the build context', () => {
    const sources = stages.flatMap((s) =>
      copies(s)
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources),
    );
    expect(sources).to.include.members(['package.json', 'package-lock.json', 'src', 'policy', 'config', 'mail']);
    for (const source of sources) {
      expect(existsSync(join(root, source)), `${source} exists`).to.be.true;
      const files = trackedFiles(root, source);
      expect(files, `${source} holds tracked files`).to.not.be.empty;
      for (const file of files)
        expect(ignored(file), `${file} (from COPY ${source}) is excluded by .dockerignore`).to.be.false;
    }
    expect(ignored('config/default.yaml')).to.be.false;
    expect(ignored('policy/policy.csv')).to.be.false;
    expect(ignored('mail/templates/password-reset.txt')).to.be.false;
    expect(ignored('mail/templates/email-verification.txt')).to.be.false;
  });

  it('keeps local state and secrets out of the build context', () => {
    for (const path of [
      'node_modules/koa/package.json',
      'dist/src/main/server.js',
      'data/portico.sqlite',
      '.git/HEAD',
      'test/deploy/dockerfile.test.ts',
      'config/production.yaml',
      '.env',
    ]) {
      expect(ignored(path), path).to.be.true;
    }
  });

  it('reads .dockerignore the way Docker does: the last matching pattern wins, a folder covers its files', () => {
    const rules = dockerIgnore('*\n!src\nsrc/**/*.test.ts\n!keep.md');
    expect(rules('README.md')).to.be.true;
    expect(rules('src/main/server.ts')).to.be.false;
    expect(rules('src/a/b.test.ts')).to.be.true;
    expect(rules('keep.md')).to.be.false;
  });
});
