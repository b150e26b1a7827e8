import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { withSandboxLocalDefaults } from '../start/defaults.js';
import { citusKnownTables, distributeOnCitus, hasCitus, prepareCitusSession } from './citus-distribute.js';

/**
 * Applies prisma/migrations/<ts>_<name>/migration.sql in order (decision A22: Prisma's own
 * migrate needs engine binaries that cannot be fetched here). An advisory lock serialises
 * concurrent runners; each file runs in its own transaction; a changed applied file is refused.
 * With the `citus` extension (issue 29, docs/deploy.md "Citus") the schema is then distributed by platform
 * (src/cli/citus-distribute.ts): once at the end on a fresh database, and after each file in that file's
 * transaction once it is distributed, so a table a file creates is distributed before the next file runs.
 */
const LOCK_ID = 727_001;
const DEFAULT_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

export interface MigrateResult {
  applied: string[];
  skipped: string[];
  /** On Citus: the tables distributed or made reference tables, and functions propagated, this run. */
  distributed: string[];
}

export async function migrate(databaseUrl: string, dir = DEFAULT_DIR, log: (m: string) => void = () => {}): Promise<MigrateResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_migrations" (
      "name" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const done = new Map<string, string>(
      (await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM "_migrations"')).rows.map((r) => [r.name, r.checksum]),
    );
    const names = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    const result: MigrateResult = { applied: [], skipped: [], distributed: [] };
    const citus = await hasCitus(client);
    if (citus) await prepareCitusSession(client);
    // Distributed already: a new file's tables are distributed in its own transaction.
    const perFile = citus && (await citusKnownTables(client)).size > 0;
    for (const name of names) {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = done.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) throw new Error(`migration ${name} was changed after it was applied; add a new migration instead`);
        result.skipped.push(name);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(sql);
        if (perFile) result.distributed.push(...(await distributeOnCitus(client)));
        await client.query('INSERT INTO "_migrations"(name, checksum) VALUES ($1, $2)', [name, checksum]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${(err as Error).message}`);
      }
      log(`applied ${name}`);
      result.applied.push(name);
    }
    // Always (idempotent): also finishes a distribution an earlier run left half done.
    if (citus) result.distributed.push(...(await distributeOnCitus(client)));
    for (const d of result.distributed) log(`citus: ${d}`);
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

async function main() {
  // Migrations hold a session-level advisory lock: through a transaction-mode pooler (PgBouncer) they
  // need a direct connection (DATABASE_DIRECT_URL, docs/deploy.md "PgBouncer").
  // In the sandbox an unset DATABASE_URL is the local server's `svc`, as for `npm start`.
  const env = withSandboxLocalDefaults(process.env);
  const url = env.DATABASE_DIRECT_URL || env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL (or DATABASE_DIRECT_URL) is required');
    process.exit(2);
  }
  const r = await migrate(url, DEFAULT_DIR, (m) => console.log(m));
  console.log(`migrations: ${r.applied.length} applied, ${r.skipped.length} already applied${r.distributed.length ? `; citus: ${r.distributed.length} distributed` : ''}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
