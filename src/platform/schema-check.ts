import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config.js';
import type { PrismaClient } from './db.js';

/** prisma/migrations, from src/platform or dist/platform alike. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

const HOW = 'run `npm run db:migrate` (in the image: `node dist/cli/db-migrate.js`; under docker compose the `migrate` service does it)';

/**
 * Stops start-up with a plain sentence when the database has not been migrated (no tables, or
 * migrations on disk not yet applied) instead of the first query's Prisma stack trace.
 */
export async function assertMigrated(prisma: PrismaClient, dir = MIGRATIONS_DIR): Promise<void> {
  let applied: Set<string>;
  try {
    const rows = await prisma.$queryRawUnsafe<Array<{ name: string }>>('SELECT name FROM "_migrations"');
    applied = new Set(rows.map((r) => r.name));
  } catch (err) {
    const text = String((err as Error).message ?? err);
    if (/_migrations|does not exist|42P01/.test(text)) {
      throw new ConfigError(`The database has no schema yet: ${HOW}.`);
    }
    throw new ConfigError(`Cannot reach the database (DATABASE_URL): ${text.split('\n').filter(Boolean).slice(-1)[0] ?? text}`);
  }
  const onDisk = (await readdir(dir, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const missing = onDisk.filter((n) => !applied.has(n));
  if (missing.length) {
    throw new ConfigError(`The database is behind this version: ${missing.length} migration(s) not applied (${missing.join(', ')}): ${HOW}.`);
  }
}
