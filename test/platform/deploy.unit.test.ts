import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

/**
 * The deployment files: compose.yaml parsed as Compose reads it (YAML merge keys on), the Dockerfile
 * read as text. Their start commands must be the package's (package.json start:prod, worker:prod,
 * bin), which .ci/image-smoke.sh runs on a clean copy.
 */
const root = new URL('../../', import.meta.url);
const read = (file: string) => fs.readFileSync(new URL(file, root), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: string[];
}

describe('deployment files', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, Service>;
    volumes: Record<string, unknown>;
  };
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; bin: Record<string, string> };
  const dockerfile = read('Dockerfile');

  it('compose.yaml: PostgreSQL, Redis, migrations once, two API replicas and two workers', () => {
    const { services } = compose;
    assert.deepEqual(Object.keys(services).sort(), ['api', 'migrate', 'postgres', 'redis', 'worker']);
    assert.match(services.postgres!.image!, /^postgres:\d+/);
    assert.match(services.redis!.image!, /^redis:\d+/);
    for (const name of ['migrate', 'api', 'worker']) {
      const service = services[name]!;
      assert.equal(service.build, '.', `${name} runs the image of the Dockerfile`);
      assert.match(
        service.environment!.DATABASE_URL!,
        /^postgres:\/\/parasol:\$\{POSTGRES_PASSWORD:\?[^}]*\}@postgres:5432\/parasol$/,
        `${name}: DATABASE_URL`,
      );
      assert.match(
        service.environment!.PARASOL_MASTER_KEY!,
        /^\$\{PARASOL_MASTER_KEY:\?/,
        `${name}: the master key is required, never defaulted`,
      );
      assert.equal(service.environment!.REDIS_URL, 'redis://redis:6379');
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        assert.ok(services[dependency], `${name} depends on an existing service`);
        assert.ok(['service_healthy', 'service_completed_successfully'].includes(condition));
      }
    }
    assert.equal(
      services.postgres!.environment!.POSTGRES_PASSWORD,
      services.migrate!.environment!.DATABASE_URL!.match(/(\$\{POSTGRES_PASSWORD[^}]*\})/)![1],
    );
    assert.deepEqual(services.migrate!.command, ['node', 'bin/parasol.js', 'db', 'migrate']);
    assert.equal(services.migrate!.depends_on!.postgres!.condition, 'service_healthy');
    const api = services.api!;
    assert.equal(api.deploy?.replicas, 2);
    assert.equal(api.environment!.PARASOL_WORKERS, 'off', 'the workers run apart');
    assert.equal(api.depends_on!.migrate!.condition, 'service_completed_successfully');
    assert.equal(api.ports?.length, 1);
    const worker = services.worker!;
    assert.equal(worker.deploy?.replicas, 2);
    assert.equal(worker.depends_on!.migrate!.condition, 'service_completed_successfully');
    assert.equal(worker.environment!.PARASOL_METRICS_PORT, '9464');
    assert.match(worker.healthcheck!.test!.join(' '), /9464\/metrics/);
    assert.ok(compose.volumes.postgres !== undefined && compose.volumes.payouts !== undefined);
  });

  it('the commands are the package scripts the smoke test runs', () => {
    assert.equal(pkg.scripts['start:prod'], 'node dist/main.js');
    assert.equal(pkg.scripts['worker:prod'], 'node dist/worker-main.js');
    assert.equal(pkg.bin.parasol, 'bin/parasol.js');
    assert.deepEqual(compose.services.api!.command, pkg.scripts['start:prod']!.split(' '));
    assert.deepEqual(compose.services.worker!.command, pkg.scripts['worker:prod']!.split(' '));
    assert.match(dockerfile, /^CMD \["node", "dist\/main\.js"\]$/m);
  });

  it('Dockerfile: multi-stage, npm ci --omit=dev, non-root, healthcheck on /readyz', () => {
    const stages = [...dockerfile.matchAll(/^FROM (\S+) AS (\w+)$/gm)].map((m) => [m[1], m[2]]);
    assert.deepEqual(
      stages.map((s) => s[1]),
      ['build', 'runtime'],
    );
    for (const [image] of stages) assert.match(image!, /^node:20/, 'Node 20, what the machines run');
    const [build, runtime] = dockerfile.split(/^FROM .* AS runtime$/m) as [string, string];
    assert.match(build, /^RUN npm ci --no-audit --no-fund$/m);
    assert.match(build, /^RUN npm run build$/m);
    assert.match(runtime, /^RUN npm ci --omit=dev\b/m);
    assert.match(runtime, /^COPY --from=build \/app\/dist \.\/dist$/m);
    assert.match(runtime, /^COPY migrations \.\/migrations$/m);
    assert.match(runtime, /^USER node$/m);
    assert.match(runtime, /^HEALTHCHECK [\s\S]*\/readyz/m);
    assert.doesNotMatch(runtime, /^COPY src\b/m, 'no TypeScript source in the runtime image');
    assert.match(read('.dockerignore'), /^node_modules$/m);
  });
});
