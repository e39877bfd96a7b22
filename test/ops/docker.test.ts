/**
 * No Docker engine runs on these machines, so the container set-up is validated as files: the compose
 * file (with its anchors merged, as Compose does), the nginx config and the Dockerfile, against the
 * repository they are meant to run (workspaces, build outputs, documented variables).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { LIMITS } from '@radiobroadcaster/contracts';
import { parse } from 'yaml';
import { workerPorts } from '../../apps/sfu/src/mediasoup/mediasoup-engine.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (p: string) => readFileSync(join(root, p), 'utf8');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string } | string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
}

/** Variables docs/configuration.md's table documents (first column, several names per row allowed). */
function documentedVariables(): Set<string> {
  const names = new Set<string>();
  for (const line of read('docs/configuration.md').split('\n')) {
    const first = /^\|\s*([^|]+)\|/.exec(line)?.[1];
    if (!first) continue;
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]!);
  }
  return names;
}

/** `${NAME}`, `${NAME:-default}`, `${NAME:?message}` references in a compose value. */
const interpolations = (text: string) =>
  [...text.matchAll(/\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}/g)].map((m) => ({
    name: m[1]!,
    op: m[2],
  }));

/** 'a-b:c-d/udp' → {host: [a, b], container: [c, d], proto}. */
function portMapping(spec: string) {
  const m = /^'?(?:\$\{[^}]+\}|(\d+)(?:-(\d+))?):(\d+)(?:-(\d+))?(?:\/(udp|tcp))?'?$/.exec(spec);
  if (!m) throw new Error(`unreadable port mapping ${spec}`);
  const range = (a?: string, b?: string) => [Number(a), Number(b ?? a)] as const;
  return {
    host: m[1] ? range(m[1], m[2]) : null,
    container: range(m[3], m[4]),
    proto: m[5] ?? 'tcp',
  };
}

/** A service's published WebRTC mappings (ports 7000-7999, ranges too), `${VAR:-default}` resolved. */
function rtcPorts(s: Service) {
  return (s.ports ?? [])
    .map((p) => portMapping(resolveDefaults(p)))
    .filter((p) => p.container[0] >= 7000 && p.container[1] < 8000);
}
/**
 * What a node's RTC_UDP_PORT / RTC_TCP_PORT and SFU_SHARDS ask for, published 1:1 (the ports are in
 * the SDP): the mediasoup engine's worker i listens on RTC_UDP_PORT + i and RTC_TCP_PORT + i.
 */
function rtcPortsOf(env: Record<string, string>) {
  const udp = Number(resolveDefaults(env.RTC_UDP_PORT!));
  const tcp = Number(resolveDefaults(env.RTC_TCP_PORT!));
  const workers = Number(resolveDefaults(env.SFU_SHARDS ?? ''));
  expect([udp, tcp, workers].every((n) => Number.isInteger(n) && n > 0)).toBe(true);
  // the engine's own rule, for the first and the last worker
  expect([workerPorts(udp, tcp, 0), workerPorts(udp, tcp, workers - 1)]).toEqual([
    { udp, tcp },
    { udp: udp + workers - 1, tcp: tcp + workers - 1 },
  ]);
  return [
    { host: [udp, udp + workers - 1], container: [udp, udp + workers - 1], proto: 'udp' },
    { host: [tcp, tcp + workers - 1], container: [tcp, tcp + workers - 1], proto: 'tcp' },
  ];
}
const resolveDefaults = (v: string) => v.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');

/** coturn: Debian's package with docker/coturn/turnserver.conf, REST secret, relay only to the SFU. */
function expectCoturn(services: Record<string, Service>, file: string) {
  const coturn = services.coturn!;
  expect([file, coturn.build]).toEqual([file, './coturn']);
  const dockerfile = read('docker/coturn/Dockerfile');
  expect(dockerfile).toMatch(/^FROM debian:/m);
  expect(dockerfile).toMatch(/apt-get install [^\n]*\bcoturn\b/);
  expect(dockerfile).toMatch(/COPY turnserver\.conf \/etc\/turnserver\.conf/);
  expect(dockerfile).toMatch(/"-c", "\/etc\/turnserver\.conf"/);
  const args = coturn.command!;
  expect(args).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^--static-auth-secret=\$\{TURN_SECRET:\?/),
      expect.stringMatching(/^--allowed-peer-ip=\$\{PUBLIC_IP/),
    ]),
  );
  const conf = read('docker/coturn/turnserver.conf');
  // every peer refused (public ones too) but the SFU addresses the command line allows
  expect(conf).toMatch(/^denied-peer-ip=0\.0\.0\.0-255\.255\.255\.255$/m);
  expect(conf).toMatch(/^denied-peer-ip=::-ffff(:ffff){7}$/m);
  expect(conf).not.toMatch(/^(allow-loopback-peers|allowed-peer-ip)/m);
  const listening = Number(/^listening-port=(\d+)/m.exec(conf)![1]);
  const relayMin = Number(/^min-port=(\d+)/m.exec(conf)![1]);
  const relayMax = Number(/^max-port=(\d+)/m.exec(conf)![1]);
  expect((coturn.ports ?? []).map(portMapping)).toEqual(
    expect.arrayContaining([
      { host: [listening, listening], container: [listening, listening], proto: 'udp' },
      { host: [listening, listening], container: [listening, listening], proto: 'tcp' },
      { host: [relayMin, relayMax], container: [relayMin, relayMax], proto: 'udp' },
    ]),
  );
}

describe('docker/compose.yml: the cluster of the README', () => {
  let services: Record<string, Service>;
  const byRole = (cmd: string) =>
    Object.entries(services).filter(([, s]) => s.command?.join(' ') === `node ${cmd}`);
  const API_MAIN = 'apps/api/dist/main.js';
  const SFU_MAIN = 'apps/sfu/dist/node/main.js';

  beforeAll(() => {
    const doc = parse(read('docker/compose.yml'), { merge: true }) as {
      services: Record<string, Service>;
    };
    services = doc.services;
  });

  it('has PostgreSQL, Redis, 2 API nodes behind a proxy, 2 SFU nodes and coturn, started by the built entry points', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api1', 'api2', 'coturn', 'postgres', 'proxy', 'redis', 'sfu1', 'sfu2'].sort(),
    );
    expect(byRole(API_MAIN).map(([n]) => n)).toEqual(['api1', 'api2']);
    expect(byRole(SFU_MAIN).map(([n]) => n)).toEqual(['sfu1', 'sfu2']);
    // The entry points exist in the build the image runs (`npm run build`, which npm test ran first).
    expect(existsSync(join(root, API_MAIN))).toBe(true);
    expect(existsSync(join(root, SFU_MAIN))).toBe(true);
    // One image for both roles, built once from the repository root with the Dockerfile.
    const built = Object.values(services).filter((s) => typeof s.build === 'object');
    expect(built).toHaveLength(1);
    expect(built[0]!.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
    const image = built[0]!.image;
    for (const [, s] of [...byRole(API_MAIN), ...byRole(SFU_MAIN)]) expect(s.image).toBe(image);
  });

  it('points every node at the cluster services and waits for them to be healthy', () => {
    for (const [name, s] of [...byRole(API_MAIN), ...byRole(SFU_MAIN)]) {
      const env = s.environment!;
      expect([name, env.REDIS_URL]).toEqual([name, 'redis://redis:6379']);
      const deps = s.depends_on as Record<string, { condition: string }>;
      expect([name, deps.redis?.condition]).toEqual([name, 'service_healthy']);
    }
    for (const [name, s] of byRole(API_MAIN)) {
      const env = s.environment!;
      expect([name, env.SFU_MODE]).toEqual([name, 'remote']);
      expect(new URL(env.DATABASE_URL!.replace(/\$\{[^}]+\}/g, 'x')).hostname).toBe('postgres');
      expect((s.depends_on as Record<string, unknown>).postgres).toEqual({
        condition: 'service_healthy',
      });
    }
    // All API nodes share one AUTH_SECRET and all nodes one SFU_SECRET (same interpolation).
    const same = (key: string, list: [string, Service][]) =>
      new Set(list.map(([, s]) => s.environment![key])).size;
    expect(same('AUTH_SECRET', byRole(API_MAIN))).toBe(1);
    expect(same('SFU_SECRET', [...byRole(API_MAIN), ...byRole(SFU_MAIN)])).toBe(1);
  });

  it('gives each SFU node a UDP and a TCP port per worker (SFU_SHARDS), published 1:1 and announced, and an internal URL of its own', () => {
    const taken = new Set<string>();
    const ids = new Set<string>();
    for (const [name, s] of byRole(SFU_MAIN)) {
      const env = s.environment!;
      const published = rtcPorts(s);
      expect(published).toEqual(rtcPortsOf(env));
      // no per-session port ranges: a port per protocol per worker
      expect([name, env.RTC_PORT_MIN, env.RTC_PORT_MAX]).toEqual([name, undefined, undefined]);
      expect(env.RTC_ANNOUNCED_ADDRESS).toMatch(/^\$\{PUBLIC_IP/);
      expect(env.SFU_INTERNAL_URL).toBe(`http://${name}:${env.SFU_HTTP_PORT}`);
      expect([env.HEALTH_PORT, env.HEALTH_PATH]).toEqual([env.SFU_HTTP_PORT, '/health']);
      ids.add(env.SFU_NODE_ID!);
      for (const { container, proto } of published) {
        for (let port = container[0]; port <= container[1]; port++) {
          const p = `${port}/${proto}`;
          expect([name, p, taken.has(p)]).toEqual([name, p, false]);
          taken.add(p);
        }
      }
    }
    expect(ids.size).toBe(2);
  });

  it('runs coturn from the documented configuration, with the API nodes minting its credentials', () => {
    expectCoturn(services, 'docker/compose.yml');
    for (const [, s] of byRole(API_MAIN)) {
      expect(s.environment!.TURN_SECRET).toMatch(/^\$\{TURN_SECRET:\?/);
      expect(s.environment!.TURN_URLS.split(',')).toEqual([
        expect.stringMatching(/^turn:\$\{PUBLIC_IP[^}]*\}:3478\?transport=udp$/),
        expect.stringMatching(/^turn:\$\{PUBLIC_IP[^}]*\}:3478\?transport=tcp$/),
      ]);
    }
  });

  it('uses only documented variables and refuses to start without the secrets', () => {
    const documented = documentedVariables();
    const used = Object.values(services).flatMap((s) => Object.keys(s.environment ?? {}));
    const ours = used.filter((k) => !k.startsWith('POSTGRES_'));
    expect(ours.filter((k) => !documented.has(k))).toEqual([]);
    const refs = interpolations(read('docker/compose.yml'));
    for (const secret of ['AUTH_SECRET', 'SFU_SECRET', 'POSTGRES_PASSWORD', 'TURN_SECRET']) {
      const ops = new Set(refs.filter((r) => r.name === secret).map((r) => r.op));
      expect([secret, [...ops]]).toEqual([secret, [':?']]);
    }
  });

  it('sends the proxy to every API node on its port', () => {
    const conf = read('docker/nginx.conf');
    const upstream = /upstream api \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    const servers = [...upstream.matchAll(/server\s+([\w-]+):(\d+)/g)].map(
      (m) => `${m[1]}:${m[2]}`,
    );
    expect(servers).toEqual(byRole(API_MAIN).map(([n]) => `${n}:3000`));
    const listen = Number(/listen\s+(\d+);/.exec(conf)?.[1]);
    const proxyPorts = services.proxy!.ports!.map(portMapping);
    expect(proxyPorts.map((p) => p.container[0])).toEqual([listen]);
    // WebSocket upgrade for socket.io, and nginx lets through every body the API accepts.
    expect(conf).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    const cap = /client_max_body_size\s+(\d+)([km]?);/.exec(conf)!;
    const bytes = Number(cap[1]) * ({ k: 1024, m: 1024 * 1024 }[cap[2] as 'k' | 'm'] ?? 1);
    expect(bytes).toBeGreaterThanOrEqual(Math.max(LIMITS.jsonBodyMaxBytes, LIMITS.sdpMaxBytes));
  });
});

describe('docker/compose.single.yml: one machine with a domain name', () => {
  let services: Record<string, Service>;
  beforeAll(() => {
    services = (
      parse(read('docker/compose.single.yml'), { merge: true }) as {
        services: Record<string, Service>;
      }
    ).services;
  });

  it('runs the API with the SFU embedded on PostgreSQL, coturn and Caddy, from the same image', () => {
    expect(Object.keys(services).sort()).toEqual(['app', 'caddy', 'coturn', 'postgres']);
    const app = services.app!;
    expect(app.command).toEqual(['node', 'apps/api/dist/main.js']);
    expect(app.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
    const cluster = parse(read('docker/compose.yml'), { merge: true }) as {
      services: Record<string, Service>;
    };
    expect(app.image).toBe(cluster.services.api1!.image);
    const env = app.environment!;
    expect(env.SFU_MODE).toBe('embedded');
    expect(env.REDIS_URL).toBeUndefined();
    expect(new URL(env.DATABASE_URL!.replace(/\$\{[^}]+\}/g, 'x')).hostname).toBe('postgres');
    expect(app.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    // cookies' Secure, links and the studio's secure context: the public URL is the HTTPS domain
    expect(env.PUBLIC_URL).toMatch(/^https:\/\/\$\{DOMAIN:\?/);
    expect(env.TRUST_PROXY).toBe('true');
    expect(env.RTC_ANNOUNCED_ADDRESS).toMatch(/^\$\{PUBLIC_IP:\?/);
    expect(app.volumes).toEqual(['appdata:/data']);
  });

  it('publishes a UDP and a TCP port per SFU worker (SFU_SHARDS) from RTC_UDP_PORT and RTC_TCP_PORT, 1:1', () => {
    const app = services.app!;
    expect(rtcPorts(app)).toEqual(rtcPortsOf(app.environment!));
    // nothing else of the app is published: HTTP goes through Caddy only
    expect(app.ports).toHaveLength(2);
  });

  it('hands out TURN credentials for the coturn it runs, on the same secret', () => {
    expectCoturn(services, 'docker/compose.single.yml');
    const env = services.app!.environment!;
    expect(env.TURN_SECRET).toMatch(/^\$\{TURN_SECRET:\?/);
    expect(env.TURN_URLS!.split(',')).toEqual([
      'turn:${DOMAIN}:3478?transport=udp',
      'turn:${DOMAIN}:3478?transport=tcp',
    ]);
    expect(services.coturn!.command).toContain('--realm=${DOMAIN:?set DOMAIN}');
  });

  it('puts Caddy in front with automatic HTTPS for DOMAIN, proxying to the app', () => {
    const caddy = services.caddy!;
    expect(caddy.image).toMatch(/^caddy:2/);
    expect(caddy.volumes).toContain('./Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(caddy.environment!.DOMAIN).toMatch(/^\$\{DOMAIN:\?/);
    expect(caddy.ports!.map(portMapping)).toEqual([
      { host: [80, 80], container: [80, 80], proto: 'tcp' },
      { host: [443, 443], container: [443, 443], proto: 'tcp' },
      { host: [443, 443], container: [443, 443], proto: 'udp' },
    ]);
    const caddyfile = read('docker/Caddyfile')
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n');
    // a site block named by the domain (Caddy's automatic HTTPS), one reverse proxy to the app's port
    expect(caddyfile).toMatch(/^\{\$DOMAIN\} \{$/m);
    expect([...caddyfile.matchAll(/reverse_proxy\s+(\S+)/g)].map((m) => m[1])).toEqual([
      'app:3000',
    ]);
  });

  it('uses only documented variables and refuses to start without the secrets and the addresses', () => {
    const documented = documentedVariables();
    const appVars = Object.keys(services.app!.environment!);
    expect(appVars.filter((k) => !documented.has(k))).toEqual([]);
    const refs = interpolations(read('docker/compose.single.yml'));
    for (const name of ['AUTH_SECRET', 'POSTGRES_PASSWORD', 'TURN_SECRET', 'DOMAIN', 'PUBLIC_IP']) {
      const ops = new Set(refs.filter((r) => r.name === name).map((r) => r.op ?? 'none'));
      // every use either refuses to start without it or comes after one that does
      expect([name, ops.has(':?'), ops.has(':-')]).toEqual([name, true, false]);
    }
  });
});

describe('docker/Dockerfile', () => {
  const dockerfile = read('docker/Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('copies every workspace manifest before npm ci, so the dependency layer is cached', () => {
    const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
    const ci = instructions.findIndex((l) => /^RUN npm ci\b/.test(l));
    expect(ci).toBeGreaterThan(0);
    const copied = instructions
      .slice(0, ci)
      .filter((l) => l.startsWith('COPY '))
      .flatMap((l) => l.slice(5).trim().split(/\s+/).slice(0, -1));
    expect(copied).toEqual(
      expect.arrayContaining([
        'package.json',
        'package-lock.json',
        ...workspaces.map((w) => `${w}/package.json`),
      ]),
    );
    for (const f of copied) expect([f, existsSync(join(root, f))]).toEqual([f, true]);
  });

  it('runs on the Node LTS the project develops on (.nvmrc), one package.json engines admits', () => {
    const version = /^ARG NODE_VERSION=(\d+)/m.exec(dockerfile)?.[1];
    expect(version).toBe(readFileSync(join(root, '.nvmrc'), 'utf8').trim());
    const engines = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        engines: { node: string };
      }
    ).engines.node;
    expect(engines.split('||').map((r) => /\d+/.exec(r)?.[0])).toContain(version);
    for (const from of instructions.filter((l) => /^FROM node:/.test(l)))
      expect(from).toMatch(/^FROM node:\$\{NODE_VERSION\}-/);
  });

  it('runs as a non-root user, with a health check and the API as the default command', () => {
    const stages = instructions.filter((l) => l.startsWith('FROM '));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = instructions.slice(instructions.lastIndexOf(stages.at(-1)!));
    expect(runtime.find((l) => l.startsWith('USER '))).toBe('USER node');
    expect(runtime.some((l) => l.startsWith('HEALTHCHECK '))).toBe(true);
    const cmd = runtime.find((l) => l.startsWith('CMD '))!;
    expect(JSON.parse(cmd.slice(4))).toEqual(['node', 'apps/api/dist/main.js']);
    // The health probe's default path is served by the API.
    expect(dockerfile).toMatch(/'\/health\/live'/);
  });

  it('keeps local state out of the build context', () => {
    const ignore = read('docker/Dockerfile.dockerignore').split('\n');
    for (const p of ['**/node_modules', '**/dist', '.git', '.data', '.env'])
      expect(ignore).toContain(p);
  });
});
