import { z } from 'zod';
import { isKnownCurrency } from './platform/currencies.js';
import { parseRailAdapters, specProblem, type BUILT_IN_ADAPTERS } from './adapters/selection.js';
import { isLocalSandbox, PAYMENT_JOBS_PER_CONNECTION, withSandboxLocalDefaults } from './start/defaults.js';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
/** A setting holding JSON: parsed, else `message` (the schema piped after it checks the shape). */
const jsonText = (message: string) => (raw: string, ctx: z.RefinementCtx<string>) => {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    ctx.issues.push({ code: 'custom', message, input: raw });
    return z.NEVER;
  }
};

const feeBps = z.number().int().min(0).max(10_000);
const feeMinorAmount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const feeCurrency = z.string().refine(isKnownCurrency, 'unknown currency');

/**
 * `SERVICE_FEE_SCHEDULE`: JSON overriding the service's own fee schedule (defaults and meaning in
 * src/domains/fees/fee-rules.ts). Each field given replaces that field's default as a whole.
 * `railFixed` keys are a rail (`WIRE`: minor units of USD, charged when sending USD) or a rail and
 * a sending currency (`WIRE:EUR`: minor units of EUR, charged when sending EUR).
 */
export const serviceFeeScheduleInput = z
  .object({
    crossCurrencyBps: feeBps.optional(),
    crossCurrencyFixed: z.record(feeCurrency, feeMinorAmount).optional(),
    railFixed: z
      .record(
        z.string().refine((k) => /^[A-Z][A-Z0-9_]*(:[A-Z]{3,4})?$/.test(k) && (!k.includes(':') || isKnownCurrency(k.split(':')[1]!)), 'must be RAIL or RAIL:CURRENCY'),
        feeMinorAmount,
      )
      .optional(),
    railBps: z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be a rail name'), feeBps).optional(),
  })
  .strict();

const serviceFeeScheduleEnv = z
  .string()
  .transform(jsonText('must be a JSON object, e.g. {"crossCurrencyBps":50}'))
  .pipe(serviceFeeScheduleInput);

/** A built-in adapter's name or a module path (docs/adapters.md); an unknown built-in stops start-up. */
const adapterChoice = (kind: keyof typeof BUILT_IN_ADAPTERS) =>
  z
    .string()
    .trim()
    .min(1)
    .max(500)
    .superRefine((spec, ctx) => {
      const problem = specProblem(kind, spec);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

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
  /** The built dashboard (issue 15), served at /dashboard; default dist/dashboard next to the server. */
  DASHBOARD_DIR: z.string().min(1).optional(),
  /** Minutes without input after which the dashboard forgets its credentials and signs out. */
  DASHBOARD_IDLE_MINUTES: int(15, 1),
  DATABASE_URL: z.string().min(1, 'is required (postgresql://user@host:5432/db)'),
  /**
   * A direct (session-mode) connection for the migration runner and its advisory lock, when
   * DATABASE_URL goes through a transaction-mode pooler such as PgBouncer. Unset: DATABASE_URL.
   */
  DATABASE_DIRECT_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: int(10, 1),
  /**
   * Issue 27 (27e): how long a pooled connection may sit idle before it is closed; 0 (the default) keeps
   * every connection the process opened. A connection opened for a burst of card authorizations costs that
   * burst's request the new backend's start and its first plans (measured 5× a warm decision's time, 10 ms
   * of backend CPU): closing idle ones (pg's 10 s) made every burst above the last 10 s's peak pay it again.
   */
  DATABASE_POOL_IDLE_TIMEOUT_MS: int(0, 0),
  /**
   * Issue 12: the hot path's raw statements are sent as named prepared statements (planned once per
   * connection). Set false behind a transaction-mode pooler that does not track them (PgBouncer
   * before 1.21, or without max_prepared_statements): docs/deploy.md "PgBouncer".
   */
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
  DATABASE_TX_MAX_WAIT_MS: int(10_000, 100),
  DATABASE_TX_TIMEOUT_MS: int(15_000, 100),
  REDIS_URL: z.string().min(1, 'is required (redis://host:6379)'),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, _ . or -').default('svc'),
  /** Redis topology (docs/deploy.md "Redis"): standalone (REDIS_URL), sentinel or cluster. */
  REDIS_MODE: z.enum(['standalone', 'sentinel', 'cluster']).default('standalone'),
  /** Sentinel mode: the sentinels (host:port, comma-separated) and the name of the monitored master. */
  REDIS_SENTINELS: z.string().optional(),
  REDIS_SENTINEL_MASTER: z.string().default('mymaster'),
  /** Cluster mode: seed nodes (host:port, comma-separated); REDIS_URL's credentials and TLS apply to each. */
  REDIS_CLUSTER_NODES: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(1_048_576, 1024),
  SHUTDOWN_TIMEOUT_MS: int(20_000, 100),
  AUTH_CACHE_TTL_SECONDS: int(60, 0),
  AUTH_CACHE_KEY: z.string().min(16).optional(),
  /** Longest a process keeps its copy of a platform's settings (changes reach every process at once by pub/sub). */
  PLATFORM_SETTINGS_MAX_AGE_MS: int(60_000, 0),
  RATE_LIMIT_MAX: int(6000, 1),
  RATE_LIMIT_WINDOW_MS: int(60_000, 1000),
  IDEMPOTENCY_TTL_HOURS: int(24, 1),
  /** Life of the Redis in-flight marker of an Idempotency-Key; its owner renews it every third of this. */
  IDEMPOTENCY_LEASE_MS: int(30_000, 100),
  /** Test-only fault hooks (crash right after an effect commits); refused in production. */
  FAULT_INJECTION: bool.default(false),
  WEBHOOK_SIGNING_KEY: z.string().optional(),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100),
  WEBHOOK_RETRY_BASE_MS: int(30_000, 1),
  WEBHOOK_RETRY_MAX_MS: int(1_800_000, 1),
  WEBHOOK_RETRY_WINDOW_MS: int(7 * 24 * 3_600_000, 1),
  WEBHOOK_CONCURRENCY: int(32, 1),
  WEBHOOK_ALLOW_PRIVATE_URLS: bool.optional(),
  OUTBOX_RELAY_INTERVAL_MS: int(500, 10),
  OUTBOX_RELAY_BATCH: int(200, 1),
  // Durable schedules (issue 11; docs/decisions.md "Issue 11"): Postgres records what is owed, BullMQ is the
  // fast path. These sweepers re-enqueue work that is due and held by no live job (e.g. after Redis lost its data).
  /** How often the worker sweeps webhook deliveries, liveness outcomes and factor-reset reviews. */
  JOB_SWEEP_INTERVAL_MS: int(5_000, 10),
  /** Items re-enqueued per sweep run (each sweeper). */
  JOB_SWEEP_BATCH: int(200, 1),
  /** How long past its due time an item waits for its own job before the sweeper re-enqueues it. */
  JOB_SWEEP_GRACE_MS: int(10_000, 0),
  EXTERNAL_ACCOUNT_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded (openssl rand -base64 32)')
    .optional(),
  EXTERNAL_ACCOUNT_CHALLENGE_TTL_MS: int(900_000, 1000),
  TRUST_CHALLENGE_TTL_MS: int(300_000, 1000),
  EXTERNAL_ACCOUNT_SWEEP_INTERVAL_MS: int(30_000, 100),
  EXTERNAL_ACCOUNT_SWEEP_BATCH: int(100, 1),
  // Customer onboarding (src/domains/customers, verification, documents).
  UMA_DEFAULT_DOMAIN: z.string().regex(/^[a-z0-9.-]{1,253}$/, 'must be a lower-case domain name').default('localhost'),
  // Adapters (docs/adapters.md): a built-in name or a module path; checked when the process starts.
  NOTIFIER: adapterChoice('notifier').default('sandbox'),
  CONTACT_CODE_TTL_SECONDS: int(600, 30),
  CONTACT_CODE_MAX_ATTEMPTS: int(5, 1),
  KYC_PROVIDER: adapterChoice('kyc').default('sandbox'),
  KYC_LINK_TTL_SECONDS: int(86_400, 60),
  KYC_SANDBOX_REVIEW_DELAY_MS: int(5_000, 0),
  KYC_DECISION_ATTEMPTS: int(10, 1),
  KYC_RECONCILE_INTERVAL_MS: int(60_000, 100),
  KYC_RECONCILE_AFTER_MS: int(120_000, 0),
  KYC_RECONCILE_BATCH: int(100, 1),
  DOCUMENT_STORAGE: adapterChoice('storage').default('local'),
  DOCUMENT_STORAGE_DIR: z.string().min(1).default('./var/documents'),
  /** POST /customers/bulk/csv (issue 13): largest CSV file and most rows per upload. */
  BULK_CSV_MAX_BYTES: int(5 * 1024 * 1024, 1),
  BULK_CSV_MAX_ROWS: int(10_000, 1),
  DOCUMENT_MAX_BYTES: int(10 * 1024 * 1024, 1).refine((n) => n <= 10 * 1024 * 1024, 'must be at most 10485760 (spec: 10 MB)'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_SESSION_TOKEN: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(true),
  S3_TIMEOUT_MS: int(15_000, 100),
  // Fees and FX (src/domains/fees, src/adapters/fx; docs/decisions.md "Fees and FX").
  SERVICE_FEE_SCHEDULE: serviceFeeScheduleEnv.optional(),
  FX_PROVIDER: adapterChoice('fx').default('sandbox'),
  FX_SPREAD_BPS: int(50, 0).refine((n) => n <= 1000, 'must be at most 1000 (10%)'),
  FX_CACHE_TTL_SECONDS: int(300, 1).refine((n) => n <= 86_400, 'must be at most 86400 (one day)'),
  QUOTE_TTL_SECONDS: int(300, 5),
  /** Receiving currencies whose corridors need `purposeOfPayment` (comma-separated). */
  PURPOSE_OF_PAYMENT_REQUIRED_CURRENCIES: z
    .string()
    .default('INR,CNY,NGN')
    .transform((s) => s.split(',').map((c) => c.trim()).filter(Boolean)),
  QUOTE_EXPIRY_SWEEP_INTERVAL_MS: int(1000, 10),
  QUOTE_EXPIRY_SWEEP_BATCH: int(200, 1),
  PAYMENT_POLL_MIN_MS: int(250, 1),
  PAYMENT_POLL_MAX_MS: int(60_000, 1),
  /** Unset: PAYMENT_JOBS_PER_CONNECTION per pooled connection (docs/deploy.md "Sizing the payments worker"). */
  PAYMENT_CONCURRENCY: z.coerce.number().int().min(1).optional(),
  /** How long a `submit` job waits for others to join its batch (issue 12): a batch's extra latency at most. */
  PAYMENT_BATCH_LINGER_MS: int(2, 0),
  PAYMENT_STALE_MS: int(60_000, 100),
  SANDBOX_RAIL_DELAY_SCALE: z.coerce.number().min(0).default(1),
  SANDBOX_SLOW_MS: int(360_000, 0),
  SANDBOX_RETURN_AFTER_MS: int(5_000, 0),
  // UMA, real-time funding and agents (issue 6; docs/decisions.md "UMA, real-time funding and agents").
  /** Who answers receiver lookups and pay requests: the sandbox directory, real UMA counterparties (uma-protocol) or a module path. */
  UMA_PROVIDER: adapterChoice('uma').default('sandbox'),
  /** Domain of the sandbox directory's test receivers ($alice@<domain>, ...). */
  UMA_SANDBOX_DOMAIN: z.string().regex(/^[a-z0-9.-]{1,253}$/, 'must be a lower-case domain name').default('sandbox.uma'),
  /** This service's VASP domain, sent to counterparties as the sender's `vaspDomain`. */
  UMA_VASP_DOMAIN: z.string().regex(/^[a-z0-9.-]{1,253}$/, 'must be a lower-case domain name').default('localhost'),
  /** secp256k1 private keys (32 bytes, hex) signing UMA requests and decrypting travel-rule data; required with uma-protocol. */
  UMA_SIGNING_PRIVATE_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex').optional(),
  UMA_ENCRYPTION_PRIVATE_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 32 bytes of hex').optional(),
  /** JSON map of UMA domain to base URL (`{"vasp.test":"http://127.0.0.1:8080"}`): counterparties reached elsewhere than https://<domain> (tests, private networks). */
  UMA_DOMAIN_OVERRIDES: z
    .string()
    .transform(jsonText('must be a JSON object of domain to base URL'))
    .pipe(z.record(z.string().regex(/^[a-z0-9.-]{1,253}$/), z.string().url()))
    .optional(),
  UMA_REQUEST_TIMEOUT_MS: int(10_000, 100),
  /**
   * JSON array of the UMA providers GET /uma-providers lists (issue 13), each
   * `{name, domain, lei?, logoUrl?, supportedCurrencies: [ISO codes], supportedRegions: [alpha-2], allowListed?: boolean}`.
   * Unset: the sandbox directory's provider alone (UMA_PROVIDER=sandbox) or none.
   */
  UMA_PROVIDERS: z
    .string()
    .transform(jsonText('must be a JSON array of providers'))
    .pipe(
      z
        .array(
          z.strictObject({
            name: z.string().min(1).max(200),
            domain: z.string().regex(/^[a-z0-9.-]{1,253}$/),
            lei: z.string().regex(/^[A-Z0-9]{20}$/).optional(),
            logoUrl: z.url().optional(),
            supportedCurrencies: z.array(z.string().regex(/^[A-Z]{3,4}$/)).max(200),
            supportedRegions: z.array(z.string().regex(/^[A-Z]{2}$/)).max(250),
            allowListed: z.boolean().default(true),
          }),
        )
        .max(1000),
    )
    .optional(),
  /** How long a receiver lookup can be quoted on (lookupId), in seconds. */
  UMA_LOOKUP_TTL_SECONDS: int(600, 10),
  /** Deposit detector of real-time funding: sandbox (deposits simulated by POST /sandbox/deposits) or an adapter module (docs/adapters.md). */
  DEPOSIT_DETECTOR: adapterChoice('deposits').default('sandbox'),
  /** Lifetime of a real-time funded quote (how long its payment instructions accept the exact deposit), in seconds. */
  REALTIME_FUNDING_TTL_SECONDS: int(900, 30),
  /** Lifetime of an agent device code, in seconds. */
  AGENT_DEVICE_CODE_TTL_SECONDS: int(600, 30),
  /** How long an agent payment may wait for platform approval; approving later fails it (QUOTE_EXPIRED). */
  AGENT_APPROVAL_WINDOW_SECONDS: int(86_400, 60),
  // Cards, signed retries, SCA and factor reset (issue 7; docs/decisions.md "Cards, SCA and stablecoin enablement").
  /** Lifetime of a signed-retry challenge (202 of PATCH /cards), decision A14: 5 minutes. */
  SIGNED_REQUEST_TTL_MS: int(300_000, 1000),
  /** Lifetime of an SCA login session (decision A15: 180 days). */
  SCA_SESSION_TTL_DAYS: int(180, 1),
  /** Lifetime of an SCA challenge (SMS login code, quote authorization); an unauthorized quote then FAILs. */
  SCA_CHALLENGE_TTL_MS: int(300_000, 1000),
  /** Factor-reset window: a reset not completed by then becomes EXPIRED. */
  SCA_RESET_TTL_MS: int(1_800_000, 1000),
  /** Factor-reset initiations allowed per customer in 24 hours (spec: 5); the next one is 429. */
  SCA_RESET_MAX_PER_DAY: int(5, 1),
  /** Sandbox liveness review: delay between the page's choice and the reset's LIVENESS_PASSED/REJECTED. */
  SCA_RESET_REVIEW_DELAY_MS: int(2_000, 0),
  /** Sweep expiring SCA challenges (failing their quotes) and factor resets. */
  SCA_SWEEP_INTERVAL_MS: int(2_000, 10),
  SCA_SWEEP_BATCH: int(100, 1),
  // Pluggable adapters (src/adapters, docs/adapters.md). Each adapter's own settings are ADAPTER_<ID>_*.
  RAIL_ADAPTERS: z
    .string()
    .default('')
    .superRefine((raw, ctx) => {
      for (const message of parseRailAdapters(raw).problems) ctx.addIssue({ code: 'custom', message });
    }),
  /** Default: sandbox in sandbox, none (LIVENESS challenges answer 501) in production. */
  LIVENESS_PROVIDER: adapterChoice('liveness').optional(),
  /** Default: sandbox in sandbox, none (UNSUPPORTED / CHECKED_BY_RECEIVING_FI) in production. */
  BENEFICIARY_CHECK_PROVIDER: adapterChoice('beneficiary-check').optional(),
  /** Bank-account linking (POST /plaid/link-tokens): sandbox (default in sandbox), plaid (ADAPTER_PLAID_*), none (default in production). */
  BANK_LINK_PROVIDER: adapterChoice('bank-link').optional(),
  /** Bound of one adapter call (an adapter may set a shorter one of its own). */
  PROVIDER_TIMEOUT_MS: int(30_000, 100),
  /**
   * Reconciliation asks a rail about a PROCESSING payment PAYMENT_STALE_MS after the rail's expected
   * settlement time, then again this often while the rail still says PENDING.
   */
  PAYMENT_RECONCILE_RETRY_MS: int(60_000, 100),
  /** Payments asked about per sweep run. */
  PAYMENT_RECONCILE_BATCH: int(100, 1),
  /** How often reconciliation (and the re-enqueue of lost submissions and refunds) runs (issue 11). */
  PAYMENT_RECONCILE_INTERVAL_MS: int(5_000, 10),
  /** How late a poll of the rail may be before reconciliation asks in its place (a lost poll job). */
  PAYMENT_RECONCILE_GRACE_MS: int(10_000, 0),
  /** How long after settlement a completed payment is still watched for a bank return (when its rail asks for it). */
  PAYMENT_RETURN_WINDOW_MS: int(7 * 24 * 3_600_000, 0),
  /** A PROCESSING payment its rail does not know this long after submission is reported (pendingReason RAIL_PAYOUT_UNKNOWN). */
  PAYMENT_UNKNOWN_AFTER_MS: int(300_000, 0),
  OPERATOR_USER: z.string().optional(),
  OPERATOR_PASSWORD: z.string().optional(),
  /** Worker only: port of its health endpoint (GET /healthz, /readyz); 0 = none. */
  WORKER_HEALTH_PORT: int(0, 0),
  /** Signs each webhook also the Standard Webhooks way (webhook-id/-timestamp/-signature) with this whsec_ secret. */
  STANDARD_WEBHOOKS_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=]{20,}$/, 'must be whsec_ followed by a base64 secret of at least 16 bytes')
    .optional(),
  // anchor:24 (Issue 24 — one money writer, keys for free)

  // end:24
  // anchor:24b (Issue 24 — defaults, start in one command, honest bench)
  /**
   * `npm start` runs the worker's queues and loops in the API process too (its own pools, as a second
   * process would have). Unset: true for a local sandbox (SVC_ENV=sandbox, NODE_ENV not production), else
   * false (run `npm run worker` beside it; the image sets NODE_ENV=production). `npm start -- --no-worker`
   * turns it off for one start.
   */
  RUN_WORKER_IN_PROCESS: bool.optional(),
  /**
   * Sandbox only: at start the API creates its database when missing, applies the migrations it lacks and
   * creates the sandbox platform (SANDBOX_CLIENT_ID), printing its credentials once. Unset: true for a local
   * sandbox (as above). Production never does (true is ignored there).
   */
  SANDBOX_AUTO_SETUP: bool.optional(),
  /** The sandbox platform made by `npm start` (and by the compose `migrate` service). */
  SANDBOX_PLATFORM_NAME: z.string().trim().min(1).max(200).default('Sandbox'),
  SANDBOX_CLIENT_ID: z.string().regex(/^[A-Za-z0-9_.-]{3,128}$/, 'must be 3-128 letters, digits, _ . or -').default('sandbox-client'),
  /** Unset: a random secret, printed once when the platform is created. */
  SANDBOX_CLIENT_SECRET: z.string().min(12, 'must be at least 12 characters').max(256).optional(),

  // end:24b
  // anchor:30 (Issue 30 — flat as the data grows)
  /** Days a webhook event keeps its whole payload; then only what the events log lists (src/platform/retention.ts). Never less than the retry window + 1 day. */
  WEBHOOK_PAYLOAD_RETENTION_DAYS: int(30, 1),
  /** Days delivery attempts are kept (the events log shows the last ones of an event). */
  WEBHOOK_ATTEMPT_RETENTION_DAYS: int(30, 1),
  /**
   * Days the status history of payments, quotes, cards and the rest is kept (status_changes, an audit trail no
   * response reads; the events log keeps each state's event); 0 keeps it forever. Customers' history is always
   * kept: their KYC holds are counted from it (30f).
   */
  STATUS_CHANGE_RETENTION_DAYS: int(90, 0),
  /** How often the retention job runs, and the rows it touches per statement (bounded batches, no vacuum storm). */
  RETENTION_INTERVAL_MS: int(60_000, 100),
  RETENTION_BATCH: int(1000, 1),
  // end:30
  // anchor:25a (Issue 25 — REF requests and reads)
  /** The operator's End User Terms (GET /customers/end-user-terms): current version and where it is published. */
  END_USER_TERMS_VERSION: z.string().min(1).max(64).default('V1'),
  END_USER_TERMS_URL: z.url({ protocol: /^https?$/ }).default('https://example.com/legal/end-user-terms'),
  /** Versions a customer's `endUserTermsConsent.termsVersion` may name (comma-separated); the current one always may. */
  END_USER_TERMS_ACCEPTED_VERSIONS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((v) => v.trim()).filter(Boolean)),
  /**
   * Whether money movement of a customer without recorded consent is refused (403 END_USER_TERMS_NOT_ACCEPTED)
   * for platforms that did not choose through PATCH /config `endUserTermsRequired`: `off` (the spec's
   * behaviour) or `unregulated` (REF's: on for platforms that are not regulated institutions).
   */
  END_USER_TERMS_ENFORCEMENT: z.enum(['off', 'unregulated']).default('off'),
  /**
   * Mobile-money operators per currency for `accountInfo.provider` (JSON `{"XOF": ["Orange Money", …]}`);
   * a currency listed replaces the sandbox list (src/domains/external-accounts/account-types.ts).
   */
  MOBILE_MONEY_PROVIDERS: z
    .string()
    .default('{}')
    .transform(jsonText('must be a JSON object of currency → operator names'))
    .pipe(z.record(z.string().regex(/^[A-Z]{3}$/), z.array(z.string().trim().min(1).max(255)).min(1).max(50))),

  // end:25a
  // anchor:25b (Issue 25 — REF new operations, account statuses, UMA approval)
  /**
   * GET /vasps (REF): the directory of VASPs recognised for counterparty declarations, as `Name|https://url` entries
   * separated by `;` (the URL optional). The default is a sandbox list of real exchanges; operators set their own.
   */
  VASP_DIRECTORY: z
    .string()
    .default(
      'Binance|https://www.binance.com;Bitso|https://bitso.com;Bitstamp|https://www.bitstamp.net;Bybit|https://www.bybit.com;Coinbase|https://www.coinbase.com;' +
        'Crypto.com|https://crypto.com;Gemini|https://www.gemini.com;Kraken|https://www.kraken.com;KuCoin|https://www.kucoin.com;Luno|https://www.luno.com;' +
        'Mercado Bitcoin|https://www.mercadobitcoin.com.br;OKX|https://www.okx.com;Revolut|https://www.revolut.com;Upbit|https://upbit.com',
    )
    .transform((raw, zctx) => {
      const entries = raw.split(';').map((e) => e.trim()).filter(Boolean).map((e) => {
        const [name, url] = e.split('|').map((x) => x.trim());
        return { vaspName: name ?? '', ...(url ? { url } : {}) };
      });
      for (const v of entries) {
        if (!v.vaspName || v.vaspName.length > 100) zctx.addIssue({ code: 'custom', message: `VASP name "${v.vaspName}" must be 1-100 characters` });
        if (v.url && !/^https?:\/\/[^\s]+$/.test(v.url)) zctx.addIssue({ code: 'custom', message: `VASP "${v.vaspName}": url must be an http(s) URL` });
      }
      if (new Set(entries.map((v) => v.vaspName.toLowerCase())).size !== entries.length) zctx.addIssue({ code: 'custom', message: 'VASP names must be unique' });
      return entries.sort((x, y) => x.vaspName.localeCompare(y.vaspName, 'en'));
    }),

  // end:25b
  // anchor:27 (Issue 27 — cards that spend)
  /** `sandbox` (default in sandbox), `http` (ADAPTER_CARD_HTTP_*), `none` (default in production: /cards answers 501) or a module path. */
  CARD_ISSUER: adapterChoice('card-issuer').optional(),
  /** Card-eligible funding currencies (spec: USDB; REF adds custodial fiat such as USD). */
  CARD_ELIGIBLE_CURRENCIES: z.string().default('USDB,USD').transform((s) => s.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean)),
  /** An authorization never cleared releases its hold this long after it was approved (network rules: 7 days, longer for some MCCs). */
  CARD_AUTHORIZATION_EXPIRY_MS: int(7 * 86_400_000, 1000),
  /** The card sweep (provisioning polls, pull confirmations, expiries): how often, and how many rows a pass. */
  CARD_SWEEP_INTERVAL_MS: int(5_000, 50),
  CARD_SWEEP_BATCH: int(200, 1),
  /** Sandbox: `005` cards activate, and `005` merchants' pulls confirm, this long after creation (REF: about 30 s). */
  SANDBOX_CARD_ACTIVATION_DELAY_MS: int(30_000, 0),
  SANDBOX_CARD_PULL_DELAY_MS: int(30_000, 0),

  // end:27
  // anchor:28 (Issue 28 — Global Accounts (embedded wallets))
  /** Wallet-custody provider of EMBEDDED_WALLET accounts (docs/adapters.md "Wallet custody"): sandbox (keys sealed in Postgres) or http. */
  WALLET_CUSTODY: z.enum(['sandbox', 'http']).default('sandbox'),
  /** Sandbox custody's sealing key (32 bytes, base64); falls back to EXTERNAL_ACCOUNT_ENCRYPTION_KEY, then (sandbox only) a fixed test key. */
  WALLET_SEALING_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes, base64').optional(),
  /** REF: a session signing key lives 15 minutes by default. */
  WALLET_SESSION_TTL_SECONDS: int(900, 30),
  /** An OTP code or passkey challenge lives this long (embeddedWalletConfig.expirationSeconds overrides per platform). */
  WALLET_OTP_TTL_SECONDS: int(300, 30),
  /** Wrong codes (or assertions) on one credential within the window before 429 RATE_LIMITED. */
  WALLET_VERIFY_MAX_ATTEMPTS: int(5, 1),
  /** New OTPs / passkey challenges per credential within the window before 429 RATE_LIMITED. */
  WALLET_CHALLENGE_MAX: int(5, 1),
  WALLET_RATE_WINDOW_SECONDS: int(600, 10),
  /** Accepted OIDC issuers, `issuer=jwksUrl` separated by commas (Google and Apple by default). */
  WALLET_OIDC_ISSUERS: z.string().default('https://accounts.google.com=https://www.googleapis.com/oauth2/v3/certs,https://appleid.apple.com=https://appleid.apple.com/auth/keys'),
  /** Accepted `aud` values, comma-separated; empty: any non-empty audience (REF's rule), pinned per credential. */
  WALLET_OIDC_AUDIENCES: z.string().default(''),
  /** REF: an ID token's `iat` at most 60 s old, 5 s of skew. */
  WALLET_OIDC_MAX_AGE_SECONDS: int(60, 1),
  /** WebAuthn relying party: the id (a domain) and the accepted origins (comma-separated). */
  WEBAUTHN_RP_ID: z.string().min(1).default('localhost'),
  WEBAUTHN_ORIGINS: z.string().min(1).default('http://localhost:3000'),
  // end:28
  // anchor:26 (Issue 26 — stablecoin issuance and pay-in coordinates)
  /** The stablecoin issuer (docs/adapters.md "Stablecoin issuer"): sandbox (default with SVC_ENV=sandbox), http-issuer, none, or a module path. */
  STABLECOIN_ISSUER_PROVIDER: adapterChoice('stablecoin-issuer').optional(),
  /** How long a WIRE-funded mint or an EXTERNAL_ACCOUNT burn waits for its funds before it EXPIRES (REF `expiresAt`). */
  STABLECOIN_FUNDING_EXPIRY_MS: z.coerce.number().int().min(60_000).max(30 * 86_400_000).default(7 * 86_400_000),
  /** Reconciliation: how often, and how many operations per sweep, the issuer is asked about unfinished operations. */
  STABLECOIN_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(30_000),
  STABLECOIN_RECONCILE_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  /** How often linked provider credentials are verified again (a refused check marks the link INVALID or REVOKED). */
  STABLECOIN_CREDENTIAL_CHECK_INTERVAL_MS: z.coerce.number().int().min(1000).max(7 * 86_400_000).default(3_600_000),

  // end:26
  // anchor:24c (Issue 24 — one writer, the rest)
  // end:24c
  // anchor:26a (Issue 26 — pay-in coordinates)
  /** Who issues standing pay-in coordinates (docs/adapters.md "Collection"): sandbox (default with SVC_ENV=sandbox), http, none (default in production), or a module path. */
  COLLECTION_PROVIDER: adapterChoice('collection').optional(),
  /** The coordinates sweep (open what is owed, close what closed, retry what failed) and the credits reconciliation poll: how often, and how many rows or credits a pass. */
  COLLECTION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5_000),
  COLLECTION_SWEEP_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  COLLECTION_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /** A failed opening is retried after this delay, doubled per attempt up to COLLECTION_RETRY_MAX_MS. */
  COLLECTION_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
  COLLECTION_RETRY_MAX_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  // end:26a
  // anchor:26b (Issue 26 — agents in REF's shape)
  /** The agent-action expiry sweep (actions still PENDING_APPROVAL past their quote's expiry become FAILED): how often, and how many per pass. */
  AGENT_ACTION_SWEEP_INTERVAL_MS: int(5_000, 10),
  AGENT_ACTION_SWEEP_BATCH: int(100, 1),
  // end:26b
  // anchor:27b (Issue 27 — cards, the rest)
  /** Cards whose authorization facts each process keeps (card-spending.service.ts; re-checked by every write). */
  CARD_AUTHORIZATION_CACHE_SIZE: int(10_000, 1),
  /** A card state the issuer refused or did not answer is pushed again after BASE·2^(attempts−1), at most MAX apart. */
  CARD_ISSUER_STATE_RETRY_BASE_MS: int(5_000, 10),
  CARD_ISSUER_STATE_RETRY_MAX_MS: int(3_600_000, 10),
  // end:27b
  // anchor:28b (Issue 28 — Global Accounts, the rest)
  /** How often, and how many rows per pass, the wallet sweeps open owed EMBEDDED_WALLET accounts and book reported credits. */
  WALLET_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5_000),
  WALLET_SWEEP_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  /** A claimed row is left to its worker this long; a worker killed mid-row leaves it due again after that. */
  WALLET_SWEEP_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** How many of a wallet's newest credits the custody provider is asked about when one is reported. */
  WALLET_CREDITS_PAGE: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * How often each embedded wallet's custody provider is asked about new credits, and how many wallets per
   * pass: a provider behind the http bridge reports nothing by itself. 0 turns the poll off (the default with
   * the sandbox custody, whose credits are reported by the sandbox call).
   */
  WALLET_CREDIT_POLL_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).optional(),
  WALLET_CREDIT_POLL_BATCH: z.coerce.number().int().min(1).max(1000).default(50),
  // end:28b
  // anchor:25c (Issue 25 — REF drift, the rest)
  /**
   * Minimum beneficiary fields of external accounts for platforms that did not choose through PATCH /config
   * `beneficiaryRules`: `spec` (the interface spec's tables: an address for USD, GBP, EUR individuals and most
   * businesses) or `ref` (REF's schemas: a name, plus EUR's countryOfResidence and the few others REF lists).
   */
  BENEFICIARY_RULES: z.enum(['spec', 'ref']).default('spec'),
  /**
   * REF's incoming-payment approval handshake for platforms that did not choose through PATCH /config
   * `incomingPaymentApproval`: `off` (the spec: an incoming payment completes without asking) or `on`.
   */
  INCOMING_PAYMENT_APPROVAL: z.enum(['off', 'on']).default('off'),
  /** How long a platform that answered 202 has to approve or reject an incoming payment (REF: 5 s); then it is rejected. */
  INCOMING_APPROVAL_WINDOW_MS: int(5000, 1000),
  // end:25c
  // anchor:29 (Issue 29 — Citus)
  // end:29
  // anchor:26c (Issue 26 — stablecoin internal-account mints/burns, agent idempotency)
  /** An agent's TRANSFER_IN approved this long ago without its pull (the process died in between) is pulled by the owed-work sweep. */
  AGENT_TRANSFER_IN_OWED_AFTER_MS: int(30_000, 0),
  // end:26c
  // anchor:24d (Issue 24 — keyed path cost, poll batching)
  // end:24d
  // anchor:24e (Issue 24 — one writer for fail/return/journals, adapters split)
  // end:24e
  // anchor:29a (Issue 29 — sweepers per platform group)
  // end:29a
  // anchor:29b (Issue 29 — partitioned rehearsal)
  // end:29b
  // anchor:29c (Issue 29 — Citus deployment and rehearsal)
  // end:29c
  // anchor:27c (Issue 27 — authorization speed, FX on the hot path)
  /**
   * A card authorization in another currency than its funding source's is converted at a rate this process
   * read at most this long ago (no Redis or provider round trip per decision); the rate is locked on the
   * card transaction. At most FX_CACHE_TTL_SECONDS's worth (the shared rate cache) is useful.
   */
  CARD_FX_RATE_MAX_AGE_MS: int(60_000, 0).refine((n) => n <= 3_600_000, 'must be at most 3600000 (one hour)'),
  // end:27c
  // anchor:30b (Issue 30 — storage per payment, growth run)
  // end:30b
  /** OpenTelemetry tracing through the official Node SDK: off unless true (OTEL_* variables configure the exporter). */
  OTEL_ENABLED: bool.default(false),
});

export type AppConfig = z.infer<typeof envSchema> & {
  /** PAYMENT_CONCURRENCY as given, else PAYMENT_JOBS_PER_CONNECTION × DATABASE_POOL_MAX. */
  PAYMENT_CONCURRENCY: number;
  /** RUN_WORKER_IN_PROCESS as given, else true for a local sandbox. */
  RUN_WORKER_IN_PROCESS: boolean;
  /** SANDBOX_AUTO_SETUP as given (never in production), else true for a local sandbox. */
  SANDBOX_AUTO_SETUP: boolean;
  /** Private and loopback webhook URLs are refused in production (SSRF, decision A7). */
  webhookAllowPrivateUrls: boolean;
  /** Every `ADAPTER_*` variable: adapters' own settings (`ADAPTER_<ID>_<KEY>`), read by src/adapters/registry.ts. */
  adapterEnv: Record<string, string>;
};

export class ConfigError extends Error {}

/**
 * Well-known values shipped in .env.example and docker-compose.yml for the local sandbox. A
 * production process refuses them (and the settings production cannot do without), naming each.
 */
export const SANDBOX_DEFAULT_SECRETS = {
  OPERATOR_PASSWORD: ['operator-change-me'],
  SANDBOX_CLIENT_SECRET: ['sandbox-secret-change-me'],
} as const;

function productionProblems(cfg: z.infer<typeof envSchema>): string[] {
  const out: string[] = [];
  if (!cfg.WEBHOOK_SIGNING_KEY) out.push('WEBHOOK_SIGNING_KEY: is required in production (PEM, P-256: openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt)');
  if (!cfg.EXTERNAL_ACCOUNT_ENCRYPTION_KEY) out.push('EXTERNAL_ACCOUNT_ENCRYPTION_KEY: is required in production: account identifiers are sealed at rest (openssl rand -base64 32)');
  if (cfg.OPERATOR_PASSWORD && (SANDBOX_DEFAULT_SECRETS.OPERATOR_PASSWORD as readonly string[]).includes(cfg.OPERATOR_PASSWORD)) {
    out.push('OPERATOR_PASSWORD: is the sandbox default; set a password of your own (openssl rand -base64 24) or unset OPERATOR_USER/OPERATOR_PASSWORD');
  } else if (cfg.OPERATOR_PASSWORD && cfg.OPERATOR_PASSWORD.length < 16) {
    out.push('OPERATOR_PASSWORD: must be at least 16 characters in production');
  }
  if (cfg.WEBHOOK_ALLOW_PRIVATE_URLS === true) out.push('WEBHOOK_ALLOW_PRIVATE_URLS: must not be true in production (webhooks could reach the internal network)');
  return out;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(withSandboxLocalDefaults(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const cfg = parsed.data;
  if (cfg.SVC_ENV === 'production') {
    const problems = productionProblems(cfg);
    if (problems.length) throw new ConfigError(`Invalid configuration for SVC_ENV=production:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  if (cfg.REDIS_MODE === 'sentinel' && !cfg.REDIS_SENTINELS) {
    throw new ConfigError('Invalid configuration:\n  REDIS_SENTINELS: is required with REDIS_MODE=sentinel (host:port,host:port)');
  }
  if (cfg.REDIS_MODE === 'cluster' && !cfg.REDIS_CLUSTER_NODES) {
    throw new ConfigError('Invalid configuration:\n  REDIS_CLUSTER_NODES: is required with REDIS_MODE=cluster (host:port,host:port)');
  }
  if (cfg.SVC_ENV === 'production' && cfg.FAULT_INJECTION) {
    throw new ConfigError('Invalid configuration:\n  FAULT_INJECTION: is a test-only setting and is refused in production');
  }
  if (cfg.UMA_PROVIDER === 'uma-protocol' && (!cfg.UMA_SIGNING_PRIVATE_KEY || !cfg.UMA_ENCRYPTION_PRIVATE_KEY)) {
    throw new ConfigError('Invalid configuration:\n  UMA_SIGNING_PRIVATE_KEY/UMA_ENCRYPTION_PRIVATE_KEY: are required with UMA_PROVIDER=uma-protocol');
  }
  if ((cfg.OPERATOR_USER && !cfg.OPERATOR_PASSWORD) || (!cfg.OPERATOR_USER && cfg.OPERATOR_PASSWORD)) {
    throw new ConfigError('Invalid configuration:\n  OPERATOR_USER/OPERATOR_PASSWORD: set both or neither');
  }
  return {
    ...cfg,
    PAYMENT_CONCURRENCY: cfg.PAYMENT_CONCURRENCY ?? PAYMENT_JOBS_PER_CONNECTION * cfg.DATABASE_POOL_MAX,
    RUN_WORKER_IN_PROCESS: cfg.RUN_WORKER_IN_PROCESS ?? isLocalSandbox(cfg),
    SANDBOX_AUTO_SETUP: cfg.SVC_ENV === 'sandbox' && (cfg.SANDBOX_AUTO_SETUP ?? isLocalSandbox(cfg)),
    webhookAllowPrivateUrls: cfg.WEBHOOK_ALLOW_PRIVATE_URLS ?? cfg.SVC_ENV === 'sandbox',
    adapterEnv: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[0].startsWith('ADAPTER_') && typeof e[1] === 'string')),
  };
}
