import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../../src/cli/db-migrate.js';

/**
 * Creating and dropping test databases, on plain PostgreSQL or on a Citus cluster (issue 29, the
 * rehearsal: docs/deploy.md "Citus"). With TEST_CITUS_WORKERS (host:port of each worker, comma-separated,
 * the coordinator being DATABASE_URL's server), a database exists on every node under the same name — Citus
 * reaches a worker's shards in the database of the same name — and a clone of the template is a clone on
 * every node: the coordinator's metadata and the workers' shards are copied together, so the clone is a
 * distributed database of its own. Without it (CI), one CREATE DATABASE ... TEMPLATE as before.
 */
function workerUrls(url: string): string[] {
  const workers = (process.env.TEST_CITUS_WORKERS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return workers.map((hostPort) => {
    const u = new URL(url);
    u.host = hostPort;
    return u.toString();
  });
}

const onCitus = () => Boolean(process.env.TEST_CITUS_WORKERS);

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Creates an empty database (the template, a bench scratch); on Citus on every node, joined as one cluster, ready to migrate. */
export async function createEmptyDatabase(rootUrl: string, name: string): Promise<void> {
  await withClient(rootUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  if (!onCitus()) return;
  for (const w of workerUrls(rootUrl)) {
    await withClient(w, (c) => c.query(`CREATE DATABASE "${name}"`));
    await withClient(withDb(w, name), (c) => c.query('CREATE EXTENSION IF NOT EXISTS citus'));
  }
  const coordinator = new URL(rootUrl);
  await withClient(withDb(rootUrl, name), async (c) => {
    await c.query('CREATE EXTENSION IF NOT EXISTS citus');
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)]);
    for (const w of workerUrls(rootUrl)) {
      const u = new URL(w);
      await c.query('SELECT citus_add_node($1, $2)', [u.hostname, Number(u.port || 5432)]);
    }
  });
}

/** CREATE DATABASE name TEMPLATE template (on Citus: on every node). */
export async function cloneDatabase(rootUrl: string, name: string, template: string): Promise<void> {
  for (const url of [rootUrl, ...(onCitus() ? workerUrls(rootUrl) : [])]) {
    await withClient(url, async (c) => {
      // Citus's maintenance daemon keeps a connection to every database with the extension, which
      // CREATE DATABASE ... TEMPLATE refuses: end it and retry until the copy starts first.
      for (let attempt = 0; ; attempt++) {
        if (onCitus()) await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [template]);
        try {
          await c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
          return;
        } catch (err) {
          if (!onCitus() || attempt >= 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        }
      }
    });
  }
}

/** DROP DATABASE IF EXISTS name WITH (FORCE) (on Citus: on every node); errors ignored, as before. */
export async function dropDatabase(rootUrl: string, name: string): Promise<void> {
  for (const url of [rootUrl, ...(onCitus() ? workerUrls(rootUrl) : [])]) {
    await withClient(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
  }
}

function withDb(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** A database migrated up to one migration, to test that migration alone on rows stored as they were before it. */
export interface DatabaseBefore {
  url: string;
  /** Applies the migration under test, and only it (later ones would follow it in the default directory); the migrations applied. */
  applyMigration(): Promise<string[]>;
  /** Drops the database and the copied migrations. */
  drop(): Promise<void>;
}

/**
 * A new database (`svc_t_<time>_<tag>_<random>`) holding every migration before `migration` (a directory of
 * prisma/migrations): those migrations are copied to a scratch directory, the database made and migrated from it;
 * `applyMigration` then copies `migration` alone beside them and migrates again.
 */
export async function databaseBefore(rootUrl: string, migration: string, tag: string): Promise<DatabaseBefore> {
  const dir = path.resolve('prisma/migrations');
  if (!existsSync(path.join(dir, migration))) throw new Error(`no migration ${migration} in ${dir}`);
  const before = mkdtempSync(path.join(tmpdir(), 'svc-migrations-'));
  const name = `svc_t_${Math.floor(Date.now() / 1000)}_${tag}_${randomUUID().slice(0, 8)}`;
  const url = withDb(rootUrl, name);
  const drop = async () => {
    rmSync(before, { recursive: true, force: true });
    await dropDatabase(rootUrl, name);
  };
  try {
    for (const d of readdirSync(dir).filter((d) => d < migration)) cpSync(path.join(dir, d), path.join(before, d), { recursive: true });
    await createEmptyDatabase(rootUrl, name);
    await migrate(url, before);
  } catch (err) {
    await drop();
    throw err;
  }
  return {
    url,
    drop,
    async applyMigration() {
      cpSync(path.join(dir, migration), path.join(before, migration), { recursive: true });
      return (await migrate(url, before)).applied;
    },
  };
}
