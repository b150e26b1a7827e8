/**
 * Defaults a fresh checkout runs with (issue 24: `npm ci` then `npm start` is enough in the sandbox).
 * Pure: no I/O, read by loadConfig.
 */

/**
 * Payment jobs a worker runs at once per pooled connection (PAYMENT_CONCURRENCY unset): the `submit` jobs it
 * holds together are claimed, paid out and settled by a few statements for the whole batch, so a connection
 * serves several jobs; 6 × the default pool of 10 is about the 64 the bench found the worker needed to keep
 * up with the API (docs/decisions.md "Issue 24 — defaults").
 */
export const PAYMENT_JOBS_PER_CONNECTION = 6;

/**
 * A developer's sandbox: SVC_ENV=sandbox outside a deployment (the image sets NODE_ENV=production, and
 * docker compose, Kubernetes and the CI image tests run migrations and the worker as processes of their
 * own even in the sandbox). There `npm start` sets itself up and runs the worker in its process.
 */
export const isLocalSandbox = (cfg: { SVC_ENV: string; NODE_ENV: string }): boolean => cfg.SVC_ENV === 'sandbox' && cfg.NODE_ENV !== 'production';

/** Where .env.example points: Postgres and Redis on this machine, as `postgres` over TCP. */
export const SANDBOX_LOCAL_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/svc';
export const SANDBOX_LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * In the sandbox (SVC_ENV unset or `sandbox`) an unset DATABASE_URL / REDIS_URL means the local servers of
 * .env.example; production still requires both, naming each when missing.
 */
export function withSandboxLocalDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if ((env.SVC_ENV ?? 'sandbox') !== 'sandbox') return env;
  if (env.DATABASE_URL && env.REDIS_URL) return env;
  return { ...env, DATABASE_URL: env.DATABASE_URL || SANDBOX_LOCAL_DATABASE_URL, REDIS_URL: env.REDIS_URL || SANDBOX_LOCAL_REDIS_URL };
}
