import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Service } from 'kubernetes-models/v1/Service';
import { Secret } from 'kubernetes-models/v1/Secret';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { envSchema } from '../../src/config.js';
import { ROOT, dockerfileExec } from '../helpers/image-processes.js';

/**
 * Offline check of deploy/kubernetes (no cluster, no kubectl): every object validates against the
 * Kubernetes OpenAPI schema shipped in kubernetes-models, and the objects fit together (selectors
 * match pod labels, probes hit ports the processes serve, HPAs and PDBs point at the Deployments,
 * every env source exists, the commands are the image's entry command).
 */
const DIR = path.join(ROOT, 'deploy/kubernetes');
const kustomization = parseAllDocuments(readFileSync(path.join(DIR, 'kustomization.yaml'), 'utf8'))[0]!.toJS() as { resources: string[] };
const objects = kustomization.resources.flatMap((f) => parseAllDocuments(readFileSync(path.join(DIR, f), 'utf8')).map((d) => d.toJS() as any));
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  Deployment,
  Job,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  Service,
  Secret,
  ConfigMap,
  Namespace,
  ServiceAccount,
};
const of = (kind: string) => objects.filter((o) => o.kind === kind);
const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

describe('deploy/kubernetes', () => {
  it('every object validates against the Kubernetes API schema', () => {
    expect(objects.length).toBeGreaterThanOrEqual(10);
    for (const o of objects) {
      const Model = MODELS[o.kind];
      expect(Model, `${o.kind} has a schema here`).toBeDefined();
      expect(() => new Model!(o).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
    }
  });

  it('has API and worker Deployments with probes on ports the processes serve, and a migration Job', () => {
    const api = named('Deployment', 'svc-payments-api');
    const worker = named('Deployment', 'svc-payments-worker');
    const job = named('Job', 'svc-payments-migrate');
    const entry = dockerfileExec('ENTRYPOINT');
    expect(api.spec.template.spec.containers[0].command).toEqual([...entry, ...dockerfileExec('CMD')]);
    expect(worker.spec.template.spec.containers[0].command).toEqual([...entry, 'node', 'dist/worker.js']);
    expect(job.spec.template.spec.containers[0].command).toEqual([...entry, 'node', 'dist/cli/db-migrate.js']);
    const config = named('ConfigMap', 'svc-payments-config').data;
    for (const [d, port] of [[api, config.PORT], [worker, config.WORKER_HEALTH_PORT]] as const) {
      const c = d.spec.template.spec.containers[0];
      const ports = new Map(c.ports.map((p: any) => [p.name, String(p.containerPort)]));
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe']) {
        expect(c[probe]?.httpGet, `${d.metadata.name} ${probe}`).toBeDefined();
        expect(ports.get(c[probe].httpGet.port), `${d.metadata.name} ${probe} port`).toBe(port);
        expect(['/healthz', '/readyz']).toContain(c[probe].httpGet.path);
      }
      // The drain (SHUTDOWN_TIMEOUT_MS) ends before the kubelet kills.
      expect(d.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(config.SHUTDOWN_TIMEOUT_MS));
      expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    }
  });

  it('selectors, autoscalers and disruption budgets point at what exists', () => {
    for (const d of of('Deployment')) {
      expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
    }
    for (const s of of('Service')) {
      expect(of('Deployment').some((d) => Object.entries(s.spec.selector).every(([k, v]) => d.spec.template.metadata.labels[k] === v)), s.metadata.name).toBe(true);
    }
    expect(of('HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['svc-payments-api', 'svc-payments-worker']);
    for (const h of of('HorizontalPodAutoscaler')) expect(named('Deployment', h.spec.scaleTargetRef.name)).toBeDefined();
    for (const pdb of of('PodDisruptionBudget')) {
      expect(of('Deployment').filter((d) => Object.entries(pdb.spec.selector.matchLabels).every(([k, v]) => d.spec.template.metadata.labels[k] === v))).toHaveLength(1);
    }
    expect(of('PodDisruptionBudget')).toHaveLength(2);
  });

  it('keys live in a Secret, settings in a ConfigMap, and every name is one the service reads', () => {
    const secret = named('Secret', 'svc-payments-secrets').stringData;
    for (const key of ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'REDIS_URL', 'WEBHOOK_SIGNING_KEY', 'EXTERNAL_ACCOUNT_ENCRYPTION_KEY', 'OPERATOR_PASSWORD']) expect(secret, key).toHaveProperty(key);
    const config = named('ConfigMap', 'svc-payments-config').data;
    expect(config.SVC_ENV).toBe('production');
    for (const key of [...Object.keys(secret), ...Object.keys(config)]) expect(envSchema.shape, key).toHaveProperty(key);
    for (const w of [...of('Deployment'), ...of('Job')]) {
      for (const src of w.spec.template.spec.containers[0].envFrom) {
        if (src.configMapRef) expect(named('ConfigMap', src.configMapRef.name)).toBeDefined();
        if (src.secretRef) expect(named('Secret', src.secretRef.name)).toBeDefined();
      }
    }
  });
});
