import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/**
 * Every variable the processes read, with its default. `.env.example` lists the same set;
 * test/platform/config.test.ts keeps the two in step.
 */
export const envSchema = z.object({
  NODE_ENV: z.string().default('development'),
  SVC_ENV: z.enum(['sandbox', 'production']).default('sandbox'),
  HOST: z.string().default('0.0.0.0'),
  PORT: int(3000),
  API_BASE_PATH: z
    .string()
    .regex(/^\/[A-Za-z0-9._~\-/]*$/, 'must start with / and contain only path characters')
    .default('/2025-10-13'),
  PUBLIC_BASE_URL: z.string().url().default('http://localhost:3000'),
  DATABASE_URL: z.string().min(1, 'is required (postgresql://user@host:5432/db)'),
  DATABASE_POOL_MAX: int(10, 1),
  REDIS_URL: z.string().min(1, 'is required (redis://host:6379)'),
  REDIS_PREFIX: z.string().default('svc'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(1_048_576, 1024),
  SHUTDOWN_TIMEOUT_MS: int(20_000, 100),
  AUTH_CACHE_TTL_SECONDS: int(60, 0),
  AUTH_CACHE_KEY: z.string().min(16).optional(),
  RATE_LIMIT_MAX: int(6000, 1),
  RATE_LIMIT_WINDOW_MS: int(60_000, 1000),
  IDEMPOTENCY_TTL_HOURS: int(24, 1),
  WEBHOOK_SIGNING_KEY: z.string().optional(),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100),
  WEBHOOK_RETRY_BASE_MS: int(30_000, 1),
  WEBHOOK_RETRY_MAX_MS: int(1_800_000, 1),
  WEBHOOK_RETRY_WINDOW_MS: int(7 * 24 * 3_600_000, 1),
  WEBHOOK_CONCURRENCY: int(32, 1),
  WEBHOOK_ALLOW_PRIVATE_URLS: bool.optional(),
  OUTBOX_RELAY_INTERVAL_MS: int(500, 10),
  OUTBOX_RELAY_BATCH: int(200, 1),
  OPERATOR_USER: z.string().optional(),
  OPERATOR_PASSWORD: z.string().optional(),
});

export type AppConfig = z.infer<typeof envSchema> & {
  /** Private and loopback webhook URLs are refused in production (SSRF, decision A7). */
  webhookAllowPrivateUrls: boolean;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  if (cfg.SVC_ENV === 'production' && !cfg.WEBHOOK_SIGNING_KEY) {
    throw new ConfigError('Invalid configuration:\n  WEBHOOK_SIGNING_KEY: is required in production (PEM, P-256)');
  }
  if ((cfg.OPERATOR_USER && !cfg.OPERATOR_PASSWORD) || (!cfg.OPERATOR_USER && cfg.OPERATOR_PASSWORD)) {
    throw new ConfigError('Invalid configuration:\n  OPERATOR_USER/OPERATOR_PASSWORD: set both or neither');
  }
  return {
    ...cfg,
    webhookAllowPrivateUrls: cfg.WEBHOOK_ALLOW_PRIVATE_URLS ?? cfg.SVC_ENV === 'sandbox',
  };
}
