import { expect } from 'chai';
import { readdirSync } from 'node:fs';
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
import { parseDockerfile, readRepoFile } from './dockerfile.js';
import { configUnder, unknownSettings } from './settings.js';

const root = process.cwd();
const folder = 'deploy/k8s';

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
  const deployment = one<IDeployment>('Deployment');
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
  /** The environment a pod of this Deployment gets, with a real secret in place of the example's placeholder. */
  const podEnv = (overrides: Record<string, string> = {}) =>
    ({ ...configMap.data, ...secret.stringData, ...overrides }) as Record<string, string>;

  it('holds a Deployment, Service, ConfigMap, Secret, migration Job, HorizontalPodAutoscaler and PodDisruptionBudget, each valid against the Kubernetes schemas', () => {
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
    }
    const user = parseDockerfile(readRepoFile(root, 'Dockerfile'))
      .at(-1)!
      .instructions.filter((i) => i.keyword === 'USER')
      .at(-1)!.args[0]!;
    expect(String(pod.securityContext!.runAsUser), 'runAsUser is the image USER').to.equal(user.split(':')[0]);
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
    expect(
      selects(deployment.spec!.selector.matchLabels!, job.spec!.template.metadata!.labels!),
      'Job pods are not Deployment pods',
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
});
