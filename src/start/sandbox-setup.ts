import pg from 'pg';
import type { Logger } from 'pino';
import type { AppConfig } from '../config.js';
import type { PrismaClient } from '../platform/db.js';
import { isUniqueViolation } from '../platform/db.js';
import { migrate } from '../cli/db-migrate.js';
import { platformLabel } from '../platform/ids.js';
import { clientIdExists, createPlatform } from '../domains/platforms/platforms.service.js';

/**
 * `npm start` in the sandbox on a fresh machine (issue 24): what `createdb`, `npm run db:migrate` and
 * `npm run platform:create` did by hand. Runs only with SVC_ENV=sandbox and SANDBOX_AUTO_SETUP (default: a
 * local sandbox, src/start/defaults.ts); production keeps explicit migrations and stops, naming the command, when the schema is behind
 * (src/platform/schema-check.ts).
 */

/** loadConfig resolved SANDBOX_AUTO_SETUP (false whenever SVC_ENV is production). */
export const shouldSetUpSandbox = (config: AppConfig): boolean => config.SVC_ENV === 'sandbox' && config.SANDBOX_AUTO_SETUP;

/** Creates the database when missing, then applies the migrations it lacks (none: nothing written). */
export async function prepareSandboxDatabase(config: AppConfig, logger: Logger): Promise<void> {
  const url = config.DATABASE_DIRECT_URL ?? config.DATABASE_URL;
  if (await createDatabaseIfMissing(url)) logger.info({ database: databaseName(url) }, 'sandbox: database created');
  const result = await migrate(url);
  if (result.applied.length) logger.info({ applied: result.applied.length, alreadyApplied: result.skipped.length }, 'sandbox: migrations applied');
}

const databaseName = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1));

/** true when it created the database. Postgres answers 3D000 (invalid_catalog_name) for a missing one. */
async function createDatabaseIfMissing(url: string): Promise<boolean> {
  const probe = new pg.Client({ connectionString: url });
  try {
    await probe.connect();
    return false;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const name = databaseName(url);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: maintenance.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    return true;
  } catch (err) {
    // Another process created it meanwhile (42P04 duplicate_database).
    if ((err as { code?: string }).code === '42P04') return false;
    throw err;
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/**
 * The sandbox platform SANDBOX_CLIENT_ID names, created once. Its credentials are printed on stdout when it
 * is created (only the secret's hash is kept, so never again); a later start says it exists.
 */
export async function ensureSandboxPlatform(config: AppConfig, prisma: PrismaClient, logger: Logger, print: (text: string) => void): Promise<void> {
  const clientId = config.SANDBOX_CLIENT_ID;
  if (await clientIdExists(prisma, clientId)) {
    logger.info({ clientId }, 'sandbox: platform exists (its secret was printed when it was created)');
    return;
  }
  let created;
  try {
    created = await createPlatform(prisma, { name: config.SANDBOX_PLATFORM_NAME, clientId, ...(config.SANDBOX_CLIENT_SECRET ? { clientSecret: config.SANDBOX_CLIENT_SECRET } : {}) });
  } catch (err) {
    // Two processes started at once: the other one created it and printed its credentials.
    if (isUniqueViolation(err)) return;
    throw err;
  }
  print(credentialsText(config, created));
}

function credentialsText(config: AppConfig, p: { platformId: string; clientId: string; clientSecret: string }): string {
  const base = `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}${config.API_BASE_PATH}`;
  return [
    '',
    'Sandbox platform created. Its credentials (shown once: only the secret\'s hash is kept):',
    `  platform id:   ${platformLabel(p.platformId)}`,
    `  client id:     ${p.clientId}`,
    `  client secret: ${p.clientSecret}`,
    `  try:           curl -u '${p.clientId}:${p.clientSecret}' ${base}/config`,
    '',
  ].join('\n');
}
