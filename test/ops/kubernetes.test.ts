/**
 * No cluster runs on these machines: the Kubernetes manifests (deploy/k8s, kustomize) are validated as
 * files. Every resource kustomization.yaml lists parses, has the fields the API server requires, and
 * its references hold: selectors match pod labels, the Service and Ingress reach the API's port, the
 * autoscaler and disruption budgets target the SFU, every variable is one the app reads, and every
 * resource is valid against the Kubernetes JSON schema of its kind (no kubectl needed: Debian's is too
 * old for these manifests).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { workerPorts } from '../../apps/sfu/src/mediasoup/mediasoup-engine.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (p: string) => readFileSync(join(root, p), 'utf8');

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
    fieldRef?: { fieldPath: string };
  };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: { httpGet?: { path: string; port: number | string } };
  livenessProbe?: { httpGet?: { path: string; port: number | string } };
  resources?: { requests?: { cpu?: string; memory?: string } };
}
interface PodSpec {
  hostNetwork?: boolean;
  dnsPolicy?: string;
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  affinity?: {
    podAntiAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: {
        topologyKey: string;
        labelSelector: { matchLabels: Record<string, string> };
      }[];
    };
  };
}
interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: any;
}
interface Kustomization {
  apiVersion: string;
  kind: string;
  namespace: string;
  resources: string[];
  configMapGenerator: { name: string; literals: string[] }[];
  images: { name: string; newName: string; newTag: string }[];
}

/** Variables docs/configuration.md's environment table documents. */
function documentedVariables(): Set<string> {
  const names = new Set<string>();
  for (const line of read('docs/configuration.md').split('\n')) {
    const first = /^\|\s*([^|]+)\|/.exec(line)?.[1];
    if (!first) continue;
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

/**
 * What the Kubernetes OpenAPI schema of the resource's kind (the `kubernetes-models` package, one
 * model per apiVersion and kind) says is wrong with it: types, required fields, enums. An apiVersion or
 * kind it does not know is an error too. (Unknown fields pass, as they do through these schemas.)
 */
async function schemaErrors(r: { apiVersion: string; kind: string }): Promise<string[]> {
  const where = `${r.kind} ${(r as { metadata?: { name?: string } }).metadata?.name}`;
  let Model: new (data: unknown) => { validate(): void };
  try {
    const mod = (await import(`kubernetes-models/${r.apiVersion}/${r.kind}`)) as Record<
      string,
      typeof Model
    >;
    Model = mod[r.kind]!;
  } catch (err) {
    return [`${where}: no schema for ${r.apiVersion} ${r.kind} (${(err as Error).message})`];
  }
  try {
    new Model(r).validate();
    return [];
  } catch (err) {
    return [`${where}: ${(err as Error).message}`];
  }
}

/** Only the manifests read these: the pod's own address, coturn's relay range. */
const MANIFEST_ONLY = ['NODE_ADDRESS', 'TURN_ALLOWED_PEERS'];
const API_MAIN = 'apps/api/dist/main.js';
const SFU_MAIN = 'apps/sfu/dist/node/main.js';

describe('deploy/k8s: the kustomize manifests', () => {
  let kustomization: Kustomization;
  let resources: Resource[];
  let config: Map<string, string>;
  const find = (kind: string, name: string) => {
    const r = resources.find((x) => x.kind === kind && x.metadata.name === name);
    if (!r) throw new Error(`no ${kind} ${name}`);
    return r;
  };
  const pod = (name: string) => find('Deployment', name).spec.template.spec as PodSpec;
  const envOf = (c: Container) => new Map((c.env ?? []).map((e) => [e.name, e]));

  beforeAll(() => {
    kustomization = parseAllDocuments(
      read('deploy/k8s/kustomization.yaml'),
    )[0]!.toJS() as Kustomization;
    resources = kustomization.resources.flatMap((file) =>
      parseAllDocuments(read(`deploy/k8s/${file}`)).map((d) => {
        expect([file, d.errors]).toEqual([file, []]);
        return d.toJS() as Resource;
      }),
    );
    const generated = kustomization.configMapGenerator.find((g) => g.name === 'radio-broadcaster')!;
    config = new Map(
      generated.literals.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
  });

  it('lists resources that all have apiVersion, kind and a name, unique per kind', () => {
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.namespace).toBe('radio');
    const seen = new Set<string>();
    for (const r of resources) {
      expect(r.apiVersion).toMatch(/^([a-z0-9.]+\/)?v\d/);
      expect(r.kind).toMatch(/^[A-Z]/);
      expect(r.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      const key = `${r.kind}/${r.metadata.name}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    expect([...seen].sort()).toEqual(
      [
        'Namespace/radio',
        'Deployment/api',
        'Service/api',
        'Ingress/api',
        'PodDisruptionBudget/api',
        'Deployment/sfu',
        'HorizontalPodAutoscaler/sfu',
        'PodDisruptionBudget/sfu',
        'Deployment/coturn',
      ].sort(),
    );
  });

  it("gives every Deployment a selector matching its pods' labels and images kustomize rewrites", () => {
    const imageNames = kustomization.images.map((i) => i.name);
    for (const d of resources.filter((r) => r.kind === 'Deployment')) {
      const selector = d.spec.selector.matchLabels as Record<string, string>;
      expect(Object.keys(selector).length).toBeGreaterThan(0);
      expect(d.spec.template.metadata.labels).toMatchObject(selector);
      for (const c of (d.spec.template.spec as PodSpec).containers) {
        expect([d.metadata.name, imageNames.includes(c.image)]).toEqual([d.metadata.name, true]);
      }
    }
  });

  it('runs the API as a Deployment of the image, behind a Service and an HTTPS Ingress', () => {
    const api = pod('api').containers[0]!;
    expect(api.command).toEqual(['node', API_MAIN]);
    expect(api.ports).toContainEqual({ name: 'http', containerPort: 3000 });
    expect(api.readinessProbe!.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(api.livenessProbe!.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(config.get('SFU_MODE')).toBe('remote');
    expect(config.get('TRUST_PROXY')).toBe('true');

    const service = find('Service', 'api');
    expect(service.spec.selector).toEqual(find('Deployment', 'api').spec.selector.matchLabels);
    const servicePort = (
      service.spec.ports as { name: string; port: number; targetPort: string }[]
    )[0]!;
    expect(servicePort.targetPort).toBe('http');

    const ingress = find('Ingress', 'api');
    const rule = ingress.spec.rules[0];
    expect(ingress.spec.tls[0].hosts).toContain(rule.host);
    expect(new URL(config.get('PUBLIC_URL')!).host).toBe(rule.host);
    expect(config.get('PUBLIC_URL')).toMatch(/^https:/);
    const backend = rule.http.paths[0].backend.service;
    expect(rule.http.paths[0]).toMatchObject({ path: '/', pathType: 'Prefix' });
    expect(backend).toEqual({ name: 'api', port: { name: servicePort.name } });
  });

  it('keeps PostgreSQL and Redis outside: their URLs and every secret come from one Secret', () => {
    const secretKeys = new Set<string>();
    for (const d of resources.filter((r) => r.kind === 'Deployment')) {
      for (const c of (d.spec.template.spec as PodSpec).containers) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref) continue;
          expect(ref.name).toBe('radio-broadcaster');
          expect(ref.key).toBe(e.name);
          secretKeys.add(ref.key);
        }
      }
    }
    const apiEnv = envOf(pod('api').containers[0]!);
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'AUTH_SECRET', 'SFU_SECRET', 'TURN_SECRET'])
      expect([k, apiEnv.get(k)?.valueFrom?.secretKeyRef?.name]).toEqual([k, 'radio-broadcaster']);
    // nothing secret sits in the ConfigMap
    for (const k of config.keys()) expect([k, secretKeys.has(k)]).toEqual([k, false]);
    // the documented command (docs/cluster.md) creates exactly the keys the manifests read
    const readme = read('docs/cluster.md');
    const create = /kubectl -n radio create secret generic radio-broadcaster([^`]*)```/.exec(
      readme,
    )?.[1];
    const created = [...(create ?? '').matchAll(/--from-literal=([A-Z_]+)=/g)].map((m) => m[1]);
    expect(created.sort()).toEqual([...secretKeys].sort());
  });

  it('runs SFU pods on the host network, one per node, announcing the node address on a UDP and a TCP port per worker', () => {
    const spec = pod('sfu');
    expect(spec.hostNetwork).toBe(true);
    expect(spec.dnsPolicy).toBe('ClusterFirstWithHostNet');
    const anti =
      spec.affinity!.podAntiAffinity!.requiredDuringSchedulingIgnoredDuringExecution![0]!;
    expect(anti.topologyKey).toBe('kubernetes.io/hostname');
    expect(anti.labelSelector.matchLabels).toEqual(
      find('Deployment', 'sfu').spec.selector.matchLabels,
    );
    const sfu = spec.containers[0]!;
    expect(sfu.command).toEqual(['node', SFU_MAIN]);
    const env = envOf(sfu);
    expect(env.get('NODE_ADDRESS')!.valueFrom!.fieldRef!.fieldPath).toBe('status.hostIP');
    expect(env.get('RTC_ANNOUNCED_ADDRESS')!.value).toBe('$(NODE_ADDRESS)');
    expect(env.get('SFU_INTERNAL_URL')!.value).toBe(
      `http://$(NODE_ADDRESS):${env.get('SFU_HTTP_PORT')!.value}`,
    );
    expect(env.get('SFU_NODE_ID')!.valueFrom!.fieldRef!.fieldPath).toBe('metadata.name');
    // the ports the node serves WebRTC on are the ones declared (hostNetwork: the node's own): a UDP
    // and a TCP port per worker (SFU_SHARDS), consecutive as the mediasoup engine binds them
    const udp = Number(config.get('RTC_UDP_PORT'));
    const tcp = Number(config.get('RTC_TCP_PORT'));
    const workers = Number(config.get('SFU_SHARDS'));
    expect(Number.isInteger(workers) && workers > 0).toBe(true);
    const declared = (protocol: string) =>
      sfu
        .ports!.filter((p) => p.protocol === protocol && p.name?.startsWith('rtc-'))
        .map((p) => p.containerPort);
    const expected = [...Array(workers).keys()].map((i) => workerPorts(udp, tcp, i));
    expect(declared('UDP')).toEqual(expected.map((p) => p.udp));
    expect(declared('TCP')).toEqual(expected.map((p) => p.tcp));
    // one worker per core the pod asks for
    expect(Number(sfu.resources!.requests!.cpu)).toBe(workers);
    expect(sfu.envFrom).toContainEqual({ configMapRef: { name: 'radio-broadcaster' } });
    expect(sfu.readinessProbe!.httpGet).toEqual({ path: '/health', port: 4000 });
    // time for the node to drain after SIGTERM: its drain timeout, plus a few seconds to leave
    const drain = Number(env.get('SFU_DRAIN_TIMEOUT_SECONDS')!.value);
    expect(drain).toBeGreaterThanOrEqual(10);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(drain + 5);
  });

  it("scales the SFU on its listener metric, below each node's admission limit", () => {
    const hpa = find('HorizontalPodAutoscaler', 'sfu');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'sfu',
    });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    const metric = hpa.spec.metrics[0];
    expect(metric.type).toBe('External');
    expect(metric.external.metric.name).toBe('rb_sfu_node_listeners');
    // the gauge the API nodes export (apps/api/src/metrics) and the adapter rule that serves it
    expect(read('apps/api/src/metrics/metrics.service.ts')).toContain(
      "name: 'rb_sfu_node_listeners'",
    );
    expect(read('deploy/k8s/prometheus-adapter-rules.yaml')).toMatch(/as: rb_sfu_node_listeners/);
    expect(metric.external.target.type).toBe('AverageValue');
    // a node admits what its shards measure they hold (~1,500 per core on the reference machine):
    // scale out well before nodes refuse listeners
    expect(Number(metric.external.target.averageValue)).toBeLessThan(1000);
  });

  it('keeps disruptions to one SFU node at a time and at least one API node up', () => {
    const sfu = find('PodDisruptionBudget', 'sfu');
    expect(sfu.apiVersion).toBe('policy/v1');
    expect(sfu.spec.maxUnavailable).toBe(1);
    expect(sfu.spec.selector.matchLabels).toEqual(
      find('Deployment', 'sfu').spec.selector.matchLabels,
    );
    const api = find('PodDisruptionBudget', 'api');
    expect(api.spec.minAvailable).toBe(1);
    expect(api.spec.selector.matchLabels).toEqual(
      find('Deployment', 'api').spec.selector.matchLabels,
    );
  });

  it('runs coturn from the documented configuration, relaying only to the SFU nodes', () => {
    const spec = pod('coturn');
    expect(spec.hostNetwork).toBe(true);
    const coturn = spec.containers[0]!;
    expect(coturn.args).toEqual(
      expect.arrayContaining([
        '--static-auth-secret=$(TURN_SECRET)',
        '--allowed-peer-ip=$(TURN_ALLOWED_PEERS)',
        '--external-ip=$(NODE_ADDRESS)',
      ]),
    );
    const env = envOf(coturn);
    expect(env.get('TURN_ALLOWED_PEERS')!.valueFrom!.configMapKeyRef).toEqual({
      name: 'radio-broadcaster',
      key: 'TURN_ALLOWED_PEERS',
    });
    expect(config.get('TURN_ALLOWED_PEERS')).toMatch(/^[\d.]+-[\d.]+$/);
    // the image is docker/coturn (Debian's coturn + turnserver.conf), listening where TURN_URLS say
    const port = Number(/^listening-port=(\d+)/m.exec(read('docker/coturn/turnserver.conf'))![1]);
    expect(coturn.ports!.map((p) => `${p.containerPort}/${p.protocol}`).sort()).toEqual([
      `${port}/TCP`,
      `${port}/UDP`,
    ]);
    for (const url of config.get('TURN_URLS')!.split(','))
      expect(url).toMatch(new RegExp(`^turns?:[^:]+:${port}\\?transport=(udp|tcp)$`));
  });

  it('sets only variables the app documents (and the two the manifests use themselves)', () => {
    const documented = documentedVariables();
    const names = [
      ...config.keys(),
      ...resources
        .filter((r) => r.kind === 'Deployment')
        .flatMap((d) => (d.spec.template.spec as PodSpec).containers.flatMap((c) => c.env ?? []))
        .map((e) => e.name),
    ];
    expect(names.filter((n) => !documented.has(n) && !MANIFEST_ONLY.includes(n))).toEqual([]);
  });

  it('validates every resource, and the ConfigMap kustomize generates, against the Kubernetes schemas', async () => {
    const generated = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'radio-broadcaster', namespace: kustomization.namespace },
      data: Object.fromEntries(config),
    };
    const failures: string[] = [];
    for (const r of [...resources, generated]) failures.push(...(await schemaErrors(r)));
    expect(failures).toEqual([]);
    // the schemas are live: a replica count that is no integer, a container without a name, an
    // unknown kind each fail
    const api = find('Deployment', 'api');
    const replicas = structuredClone(api);
    replicas.spec.replicas = 'two';
    expect(await schemaErrors(replicas)).toEqual([
      expect.stringMatching(/replicas must be integer/),
    ]);
    const nameless = structuredClone(api);
    delete nameless.spec.template.spec.containers[0].name;
    expect(await schemaErrors(nameless)).toEqual([
      expect.stringMatching(/containers\/0 must have required property .?name/),
    ]);
    expect(await schemaErrors({ apiVersion: 'apps/v1', kind: 'Deploymnet' })).toEqual([
      expect.stringMatching(/no schema for apps\/v1 Deploymnet/),
    ]);
  });
});
