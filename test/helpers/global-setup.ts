import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/cli/db-migrate.js';
import { partitionedTemplate } from './partitioned-db.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** Session-mode connection for creating databases and migrating (DATABASE_DIRECT_URL; else databaseUrl). */
    databaseDirectUrl: string;
    redisUrl: string;
    templateDb: string;
  }
}

const stops: Array<() => Promise<unknown>> = [];

/**
 * DATABASE_URL / REDIS_URL when set (CI and this machine), testcontainers otherwise. The migrated
 * schema is built once as a template database; every test file clones it (test/helpers/app.ts).
 */
export default async function setup(project: TestProject) {
  let databaseUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!databaseUrl) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const c = await new PostgreSqlContainer('postgres:16').start();
    stops.push(() => c.stop());
    databaseUrl = c.getConnectionUri();
  }
  if (!redisUrl) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const c = await new RedisContainer('redis:7').start();
    stops.push(() => c.stop());
    redisUrl = c.getConnectionUrl();
  }
  const dir = path.resolve('prisma/migrations');
  const hash = createHash('sha256');
  for (const d of readdirSync(dir).sort()) hash.update(d).update(readFileSync(path.join(dir, d, 'migration.sql')));
  const templateDb = `svc_tpl_${hash.digest('hex').slice(0, 12)}`;

  // Behind a transaction-mode pooler (.ci/pgbouncer), databases are created and migrated directly.
  const directUrl = process.env.DATABASE_DIRECT_URL || databaseUrl;
  const admin = new pg.Client({ connectionString: directUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(727002)');
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [templateDb]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${templateDb}"`);
      await migrate(withDatabase(directUrl, templateDb));
    }
    // Per-file databases are dropped when their file ends; these are leftovers of crashed runs.
    // Only old ones go: another test run may be using the young ones right now.
    const cutoff = Math.floor(Date.now() / 1000) - 2 * 3600;
    const stale = await admin.query(String.raw`SELECT datname FROM pg_database WHERE datname LIKE 'svc\_t\_%'`);
    for (const r of stale.rows) {
      const created = Number(String(r.datname).split('_')[2]);
      if (Number.isFinite(created) && created < cutoff) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`);
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(727002)').catch(() => undefined);
    await admin.end();
  }
  // Issue 29 (29b): TEST_DB_PARTITIONS=n runs the suite on tenant tables hash-partitioned by platform_id
  // into n partitions (test/helpers/partitioned-db.ts, .ci/partitioned-tests).
  const partitions = Number(process.env.TEST_DB_PARTITIONS ?? 0);
  const template = partitions > 1 ? await partitionedTemplate(directUrl, templateDb, partitions) : templateDb;
  project.provide('databaseUrl', databaseUrl);
  project.provide('databaseDirectUrl', directUrl);
  project.provide('redisUrl', redisUrl);
  project.provide('templateDb', template);
  return async () => {
    for (const stop of stops) await stop();
  };
}

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}
