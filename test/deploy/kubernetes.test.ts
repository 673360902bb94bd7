import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job, type IJob } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget, type IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  Secret,
  Service,
  type IConfigMap,
  type IContainer,
  type IPodSpec,
  type ISecret,
  type IService,
} from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { HEALTH_PATHS } from '../../src/adapters/inbound/http/routes/health.js';
import { parseDockerfile, readRepoFile } from './dockerfile.js';
import { configUnder, unknownSettings } from './settings.js';

const root = process.cwd();
const folder = 'deploy/k8s';
/** The worker's entry in the image (`npm run worker` runs the same file). */
const WORKER_COMMAND = ['node', 'dist/src/main/worker.js'];
/** A JWT secret long enough for production, in place of the Secret example's placeholder. */
const JWT_SECRET = 'k8s-test-secret-0123456789abcdef01';
const SECRETS_KEY = 'k8s-test-key-for-e-mailed-links-0123';

/** The models this folder may use, by `apiVersion` and `kind`: each validates against the Kubernetes OpenAPI schema. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'batch/v1 Job': Job,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
};

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

function loadManifests(): Manifest[] {
  const manifests: Manifest[] = [];
  for (const file of readdirSync(join(root, folder))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    for (const document of parseAllDocuments(readRepoFile(root, join(folder, file)))) {
      expect(document.errors, `${file}: YAML errors`).to.deep.equal([]);
      const value = document.toJS() as Manifest | null;
      if (value !== null) manifests.push({ ...value, file });
    }
  }
  return manifests;
}

/** Parses Go-style durations as the configuration does, in seconds (via the loaded config, not here). */
const seconds = (ms: number): number => ms / 1000;

describe('the Kubernetes manifests in deploy/k8s (README: Running in production)', () => {
  const manifests = loadManifests();
  const one = <T>(kind: string): T => {
    const found = manifests.filter((m) => m.kind === kind);
    expect(found, kind).to.have.length(1);
    return found[0] as unknown as T;
  };
  const deployments = manifests.filter((m) => m.kind === 'Deployment') as unknown as IDeployment[];
  /** The web tier: the Deployment the Service routes to. */
  const deployment = deployments.find((d) => d.metadata!.name === 'portico')!;
  const job = one<IJob>('Job');
  const configMap = one<IConfigMap>('ConfigMap');
  const secret = one<ISecret>('Secret');
  const service = one<IService>('Service');
  const pod = deployment.spec!.template.spec!;
  const container = pod.containers[0]!;
  const podLabels = deployment.spec!.template.metadata!.labels!;
  const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
    Object.entries(selector).every(([k, v]) => labels[k] === v);
  const portOf = (c: IContainer, name: string | number): number | undefined =>
    typeof name === 'number' ? name : c.ports?.find((p) => p.name === name)?.containerPort;
  /** The environment a pod of this Deployment gets, with real secrets in place of the example's placeholders. */
  const podEnv = (overrides: Record<string, string> = {}) =>
    ({
      ...configMap.data,
      ...secret.stringData,
      SVC_SECRETS_ENCRYPTION_KEY: SECRETS_KEY,
      SVC_STORAGE_SIGNING_SECRET: 'k8s-test-secret-signing-file-links-0123',
      ...overrides,
    }) as Record<string, string>;
  /** What `c` sees: the ConfigMap and Secret (envFrom), then its own `env` entries, which win. */
  const containerEnv = (c: IContainer, overrides: Record<string, string> = {}) => {
    const own: Record<string, string> = {};
    for (const entry of c.env ?? []) {
      expect(entry.valueFrom, `${c.name}: env ${entry.name} is a literal value`).to.be.undefined;
      own[entry.name] = entry.value ?? '';
    }
    return podEnv({ ...own, ...overrides });
  };
  /** The configuration `c` starts with (a real JWT secret; `extra` for what its entry point sets). */
  const configOf = (c: IContainer, extra: Record<string, string> = {}) => {
    const loaded = configUnder(containerEnv(c, { SVC_JWT_SECRET: JWT_SECRET, ...extra }));
    expect(loaded.ok, `${c.name}: ${JSON.stringify(loaded)}`).to.be.true;
    if (!loaded.ok) throw new Error('unreachable');
    return loaded.config;
  };
  const workers = deployments.filter(
    (d) => JSON.stringify(d.spec!.template.spec!.containers[0]!.command) === JSON.stringify(WORKER_COMMAND),
  );
  // Placeholders when the worker is missing, so that its tests fail on their assertions rather than here.
  const worker: IDeployment = workers[0] ?? ({ spec: { selector: {}, template: {} } } as unknown as IDeployment);
  const workerPod: IPodSpec = worker.spec?.template.spec ?? { containers: [] };
  const workerContainer: IContainer = workerPod.containers[0] ?? { name: 'worker (missing)' };
  const workerLabels = worker.spec?.template.metadata?.labels ?? {};

  it('holds the web and worker Deployments, Service, ConfigMap, Secret, migration Job, HorizontalPodAutoscaler and PodDisruptionBudget, each valid against the Kubernetes schemas', () => {
    expect(deployments.map((d) => d.metadata!.name)).to.have.members(['portico', 'portico-worker']);
    expect(deployment, 'the web Deployment (portico)').to.not.be.undefined;
    expect(manifests.map((m) => m.kind)).to.include.members([
      'Deployment',
      'Service',
      'ConfigMap',
      'Secret',
      'Job',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
    ]);
    for (const manifest of manifests) {
      const { file, ...data } = manifest;
      const Model = MODELS[`${data.apiVersion} ${data.kind}`];
      expect(Model, `${file}: ${data.apiVersion} ${data.kind} is not a kind this test knows`).to.not.be.undefined;
      expect(
        () => new Model!(data as never).validate(),
        `${file} (${data.kind} ${data.metadata?.name})`,
      ).to.not.throw();
    }
  });

  it('rejects a manifest that breaks the schema (the validation is real)', () => {
    const broken = structuredClone(deployment) as unknown as { spec: { template: { spec: IPodSpec } } };
    (broken.spec.template.spec.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = '8080';
    expect(() => new Deployment(broken as never).validate()).to.throw(/containerPort/);
  });

  it('runs 2 replicas with the seed probes (liveness on the management listener, readiness on port 8080), and exposes the metrics port', () => {
    expect(deployment.spec!.replicas).to.equal(2);
    expect(portOf(container, 'http')).to.equal(8080);
    expect(portOf(container, 'metrics')).to.equal(9464);
    const live = container.livenessProbe!;
    expect(live.httpGet!.path).to.equal('/health/live');
    expect(portOf(container, live.httpGet!.port)).to.equal(9464);
    expect(live.initialDelaySeconds).to.equal(5);
    expect(live.periodSeconds).to.equal(10);
    const ready = container.readinessProbe!;
    expect(ready.httpGet!.path).to.equal('/health/ready');
    expect(portOf(container, ready.httpGet!.port)).to.equal(8080);
    expect(ready.initialDelaySeconds).to.equal(10);
    expect(ready.periodSeconds).to.equal(5);
  });

  it('sets resource requests and limits, runs as non-root on a read-only root filesystem without privilege escalation', () => {
    for (const [name, spec] of [
      ['Deployment', pod],
      ['worker Deployment', workerPod],
      ['Job', job.spec!.template.spec!],
    ] as const) {
      const c = spec.containers[0]!;
      for (const resource of ['cpu', 'memory']) {
        expect(c.resources?.requests?.[resource], `${name} ${resource} request`).to.not.be.undefined;
        expect(c.resources?.limits?.[resource], `${name} ${resource} limit`).to.not.be.undefined;
      }
      expect(spec.securityContext?.runAsNonRoot ?? c.securityContext?.runAsNonRoot, `${name} runAsNonRoot`).to.equal(
        true,
      );
      expect(c.securityContext?.readOnlyRootFilesystem, `${name} readOnlyRootFilesystem`).to.equal(true);
      expect(c.securityContext?.allowPrivilegeEscalation, `${name} allowPrivilegeEscalation`).to.equal(false);
      expect(c.securityContext?.capabilities?.drop, `${name} drops every capability`).to.deep.equal(['ALL']);
    }
    const user = parseDockerfile(readRepoFile(root, 'Dockerfile'))
      .at(-1)!
      .instructions.filter((i) => i.keyword === 'USER')
      .at(-1)!.args[0]!;
    expect(String(pod.securityContext!.runAsUser), 'runAsUser is the image USER').to.equal(user.split(':')[0]);
    expect(workerPod.securityContext, 'the worker runs as the web pods do').to.deep.equal(pod.securityContext);
  });

  it('pauses before SIGTERM so balancers drain, and gives the shutdown its whole delay and timeout before SIGKILL', () => {
    const command = container.lifecycle!.preStop!.exec!.command!;
    expect(command[0]).to.equal('sleep');
    const preStop = Number(command[1]);
    expect(preStop).to.be.at.least(3);
    const loaded = configUnder(podEnv({ SVC_JWT_SECRET: 'k8s-test-secret-0123456789abcdef01' }));
    expect(loaded.ok, JSON.stringify(loaded)).to.be.true;
    if (!loaded.ok) return;
    const needed =
      preStop + seconds(loaded.config.server.shutdownDelayMs) + seconds(loaded.config.server.shutdownTimeoutMs);
    expect(pod.terminationGracePeriodSeconds).to.be.greaterThan(needed);
  });

  it('configures the pods from the ConfigMap and Secret with real configuration keys, and never migrates on start', () => {
    const refs = (spec: IPodSpec) => spec.containers[0]!.envFrom!.map((e) => e.configMapRef?.name ?? e.secretRef?.name);
    expect(refs(pod)).to.have.members([configMap.metadata!.name, secret.metadata!.name]);
    expect(refs(job.spec!.template.spec!)).to.have.members([configMap.metadata!.name, secret.metadata!.name]);
    expect(unknownSettings(Object.keys(configMap.data!)), 'ConfigMap keys that are no configuration key').to.deep.equal(
      [],
    );
    for (const c of [container, workerContainer])
      expect(
        unknownSettings((c.env ?? []).map((e) => e.name)),
        `${c.name}: env entries that are no configuration key`,
      ).to.deep.equal([]);
    expect(unknownSettings(Object.keys(secret.stringData!)), 'Secret keys that are no configuration key').to.deep.equal(
      [],
    );
    expect(Object.keys(configMap.data!).every((k) => k.startsWith('SVC_'))).to.be.true;
    expect(configMap.data!.SVC_DATABASE_MIGRATE_ON_START).to.equal('false');
    expect(configMap.data!.SVC_ENV).to.equal('production');
    const loaded = configUnder(podEnv({ SVC_JWT_SECRET: 'k8s-test-secret-0123456789abcdef01' }));
    expect(loaded.ok, JSON.stringify(loaded)).to.be.true;
    if (loaded.ok) {
      expect(loaded.config.database.migrateOnStart).to.be.false;
      expect(loaded.config.database.url).to.match(/^postgres:\/\//);
      expect(loaded.config.rateLimit.store).to.equal('redis');
      expect(loaded.config.mail.smtpUrl).to.equal(secret.stringData!.SVC_MAIL_SMTP_URL);
      expect(loaded.config.mail.linkBaseUrl).to.equal(configMap.data!.SVC_MAIL_LINK_BASE_URL);
      expect(loaded.config.mail.from).to.equal(configMap.data!.SVC_MAIL_FROM);
    }
    const withoutSmtp = podEnv({ SVC_JWT_SECRET: 'k8s-test-secret-0123456789abcdef01' });
    delete withoutSmtp.SVC_MAIL_SMTP_URL;
    const refused = configUnder(withoutSmtp);
    expect(refused.ok, 'production without mail.smtp_url').to.be.false;
    if (!refused.ok) expect(refused.errors.join('\n')).to.match(/mail\.smtp_url/);
  });

  it('ships a Secret example the service refuses to start with', () => {
    const loaded = configUnder(podEnv());
    expect(loaded.ok).to.be.false;
    if (!loaded.ok) expect(loaded.errors.join('\n')).to.match(/jwt\.secret/);
  });

  it('migrates in a Job with the Deployment image', () => {
    const migrate = job.spec!.template.spec!.containers[0]!;
    expect(migrate.image).to.equal(container.image);
    expect(migrate.command).to.deep.equal(['node', 'dist/src/main/cli.js', 'migrate']);
    expect(job.spec!.template.spec!.restartPolicy).to.be.oneOf(['Never', 'OnFailure']);
    for (const d of deployments)
      expect(
        selects(d.spec!.selector.matchLabels!, job.spec!.template.metadata!.labels!),
        `Job pods are not ${d.metadata!.name} pods`,
      ).to.be.false;
  });

  it('routes the Service to the API port only, and lets Prometheus scrape the metrics port of each pod', () => {
    expect(selects(service.spec!.selector!, podLabels)).to.be.true;
    expect(selects(deployment.spec!.selector.matchLabels!, podLabels)).to.be.true;
    const targets = service.spec!.ports!.map((p) => portOf(container, p.targetPort as string | number));
    expect(targets).to.deep.equal([8080]);
    const annotations = deployment.spec!.template.metadata!.annotations!;
    expect(annotations['prometheus.io/scrape']).to.equal('true');
    expect(Number(annotations['prometheus.io/port'])).to.equal(portOf(container, 'metrics'));
    expect(annotations['prometheus.io/path']).to.equal('/metrics');
  });

  it('scales the Deployment between 2 and more replicas and keeps one available through disruptions', () => {
    const hpa = one<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpa.spec!.scaleTargetRef).to.include({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata!.name,
    });
    expect(hpa.spec!.minReplicas).to.equal(deployment.spec!.replicas);
    expect(hpa.spec!.maxReplicas).to.be.greaterThan(hpa.spec!.minReplicas!);
    const pdb = one<IPodDisruptionBudget>('PodDisruptionBudget');
    expect(selects(pdb.spec!.selector!.matchLabels!, podLabels)).to.be.true;
    expect(pdb.spec!.minAvailable ?? pdb.spec!.maxUnavailable).to.not.be.undefined;
  });
  describe('the background-jobs worker (docs/jobs.md)', () => {
    it('is its own Deployment of 1 replica running the worker entry of the web image', () => {
      expect(workers, 'Deployments whose container runs node dist/src/main/worker.js').to.have.length(1);
      expect(worker.metadata!.name).to.not.equal(deployment.metadata!.name);
      expect(worker.spec!.replicas).to.equal(1);
      expect(workerPod.containers).to.have.length(1);
      expect(workerContainer.image).to.equal(container.image);
      expect(workerContainer.imagePullPolicy).to.equal(container.imagePullPolicy);
      expect(workerContainer.command).to.deep.equal(WORKER_COMMAND);
      expect(container.command, 'the web tier runs the image CMD').to.be.undefined;
      // The command names the file `npm run worker` runs, built from src/main/worker.ts.
      const scripts = (
        JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
      ).scripts;
      expect(scripts.worker).to.equal(WORKER_COMMAND.join(' '));
      expect(existsSync(join(root, 'src/main/worker.ts'))).to.be.true;
    });

    it("shares the web tier's ConfigMap and Secret, and so its database, Redis, mail and secrets", () => {
      const refs = (c: IContainer) => c.envFrom!.map((e) => e.configMapRef?.name ?? e.secretRef?.name);
      expect(refs(workerContainer)).to.deep.equal(refs(container));
      const web = configOf(container);
      // What worker.ts sets before the configuration is read.
      const jobs = configOf(workerContainer, { SVC_JOBS_MODE: 'worker' });
      expect(jobs.database).to.deep.equal(web.database);
      expect(jobs.redis).to.deep.equal(web.redis);
      expect(jobs.mail).to.deep.equal(web.mail);
      expect(jobs.jwt).to.deep.equal(web.jwt);
      expect({ ...jobs.jobs, mode: 'web' }, 'every jobs.* setting but the mode').to.deep.equal(web.jobs);
      expect(jobs.server.port).to.equal(web.server.port);
      expect(jobs.metrics).to.deep.equal(web.metrics);
    });

    it('keeps files in one S3 bucket for the web pods and the workers (their root filesystem is read-only), its keys in the Secret', () => {
      const web = configOf(container);
      const jobs = configOf(workerContainer, { SVC_JOBS_MODE: 'worker' });
      expect(web.storage.driver).to.equal('s3');
      expect(web.storage.s3.bucket).to.not.equal('');
      expect(jobs.storage, 'the worker removes the files the web pods store').to.deep.equal(web.storage);
      expect(configMap.data).to.not.have.any.keys('SVC_STORAGE_S3_ACCESS_KEY_ID', 'SVC_STORAGE_S3_SECRET_ACCESS_KEY');
      expect(secret.stringData).to.include.keys('SVC_STORAGE_S3_ACCESS_KEY_ID', 'SVC_STORAGE_S3_SECRET_ACCESS_KEY');
    });

    it('runs the web tier on jobs.mode web: it stores jobs, the worker runs them', () => {
      expect(configOf(container).jobs.mode).to.equal('web');
      expect(
        containerEnv(workerContainer).SVC_JOBS_MODE,
        'the worker is no web pod (worker.ts sets worker anyway)',
      ).to.not.equal('web');
    });

    it('probes the health paths as the web pods do: liveness on the management listener, readiness on server.port, and a startup probe', () => {
      const config = configOf(workerContainer, { SVC_JOBS_MODE: 'worker' });
      expect(portOf(workerContainer, 'http')).to.equal(config.server.port);
      expect(portOf(workerContainer, 'metrics')).to.equal(config.metrics.port);
      const live = workerContainer.livenessProbe!.httpGet!;
      const ready = workerContainer.readinessProbe!.httpGet!;
      const startup = workerContainer.startupProbe!.httpGet!;
      for (const probe of [live, ready, startup]) expect(HEALTH_PATHS).to.include(probe.path);
      expect(live.path).to.equal('/health/live');
      expect(portOf(workerContainer, live.port)).to.equal(config.metrics.port);
      expect(ready.path).to.equal('/health/ready');
      expect(portOf(workerContainer, ready.port)).to.equal(config.server.port);
      expect(startup.path).to.equal('/health/live');
      expect(portOf(workerContainer, startup.port)).to.not.be.undefined;
      const timing = (c: IContainer) =>
        [c.livenessProbe!, c.readinessProbe!].map(({ initialDelaySeconds, periodSeconds, timeoutSeconds }) => ({
          initialDelaySeconds,
          periodSeconds,
          timeoutSeconds,
        }));
      expect(timing(workerContainer)).to.deep.equal(timing(container));
    });

    it('is selected by no Service, PodDisruptionBudget, HorizontalPodAutoscaler or web Deployment', () => {
      expect(Object.keys(workerLabels)).to.not.be.empty;
      expect(selects(worker.spec!.selector.matchLabels!, workerLabels), 'the worker selects its own pods').to.be.true;
      for (const s of manifests.filter((m) => m.kind === 'Service') as unknown as IService[])
        expect(selects(s.spec!.selector!, workerLabels), `Service ${s.metadata!.name}`).to.be.false;
      const pdb = one<IPodDisruptionBudget>('PodDisruptionBudget');
      expect(selects(pdb.spec!.selector!.matchLabels!, workerLabels), 'PodDisruptionBudget').to.be.false;
      const hpa = one<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
      expect(hpa.spec!.scaleTargetRef.name).to.not.equal(worker.metadata!.name);
      expect(selects(deployment.spec!.selector.matchLabels!, workerLabels), 'web Deployment').to.be.false;
      expect(selects(worker.spec!.selector.matchLabels!, podLabels), 'the worker does not select web pods').to.be.false;
    });

    it('lets Prometheus scrape its metrics port, where the job runs are counted', () => {
      const annotations = worker.spec!.template.metadata!.annotations!;
      expect(annotations['prometheus.io/scrape']).to.equal('true');
      expect(Number(annotations['prometheus.io/port'])).to.equal(portOf(workerContainer, 'metrics'));
      expect(annotations['prometheus.io/path']).to.equal('/metrics');
    });

    it('gives running jobs server.shutdown_timeout to finish before SIGKILL', () => {
      const config = configOf(workerContainer, { SVC_JOBS_MODE: 'worker' });
      const preStop = Number(workerContainer.lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      // After the delay the health listener drains, then the job runner stops: each bounded by the timeout.
      const needed = preStop + seconds(config.server.shutdownDelayMs) + 2 * seconds(config.server.shutdownTimeoutMs);
      expect(workerPod.terminationGracePeriodSeconds).to.be.greaterThan(needed);
    });
  });
});
