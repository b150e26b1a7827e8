import type { Logger } from 'pino';
import { LazyChildLogger } from './platform/logger.js';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { timingSafeEqual } from 'node:crypto';
import { ctxFor, type AppDeps, type Ctx } from './deps.js';
import { frameworkErrorHandler, installErrorHandling, makeClientErrorHandler, sendError } from './platform/http/errors.js';
import { checkRequestText } from './platform/http/validate.js';
import { registerPlatformAuth } from './platform/http/auth.js';
import { installIdempotency } from './platform/http/idempotency.js';
import { coalescingRedisStore } from './platform/http/rate-limit-store.js';
import { registerDashboard } from './platform/http/dashboard.js';
import { installStrictQuery } from './platform/http/query.js';
import { createMetrics } from './platform/metrics.js';
import { newId } from './platform/ids.js';
import { hmacHex, randomToken } from './platform/secrets.js';
import { MODULES } from './modules.js';
import { resolveAgentToken } from './domains/agents/agents.auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    ctx: Ctx;
  }
  interface FastifyInstance {
    /** Every route registered, as [METHOD, url]; test/platform/openapi-routes.test.ts compares it with openapi.yaml. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

export const OPENAPI_PATH = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
/** dist/openapi.json, written by `npm run build` from openapi.yaml (absent when running from src/: then the YAML is parsed). */
const OPENAPI_JSON_PATH = fileURLToPath(new URL('./openapi.json', import.meta.url));
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
export const MAX_PARAM_LENGTH = 500;
const newRequestId = () => newId('Request').replace('Request:', 'req_');

/** The only place the HTTP app is wired. Connections come in `deps` and are closed by the caller. */
export interface BuildOptions {
  /** Extra routes at the root (tests). */
  extend?: (app: FastifyInstance) => void | Promise<void>;
  /** Extra routes inside the authenticated, versioned API scope (tests; plugins of operators). */
  extendApi?: (api: FastifyInstance, deps: AppDeps) => void | Promise<void>;
}

export async function buildApp(deps: AppDeps, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = deps;
  const app = createFastify(deps);
  installRequestHooks(app, deps.logger);

  const operatorGuard = operatorAuth(config);
  createMetrics({
    redis: deps.redis,
    redisPrefix: config.REDIS_PREFIX,
    queues: deps.queues,
    prisma: deps.prisma,
    business: { prisma: deps.prisma, queues: deps.queues, stuckAfterMs: (rail) => deps.adapters.rails.expectedSettlementMs(rail) + config.PAYMENT_STALE_MS },
  }).install(app, operatorGuard);
  registerOperationalRoutes(app, deps);
  await registerDocs(app, config.API_BASE_PATH);
  if (operatorGuard) await registerQueueDashboard(app, deps, operatorGuard);
  await registerDashboard(app, config);

  await registerApi(app, deps, opts);
  if (opts.extend) await opts.extend(app);
  return app;
}

/** Fastify with the service's logging, limits, request ids and pre-routing error answers. */
function createFastify(deps: AppDeps): FastifyInstance {
  const { config } = deps;
  return Fastify({
    loggerInstance: deps.logger,
    // Fastify's own request/response lines are off: installRequestHooks' onResponse writes one line per request.
    logController: new LogController({ disableRequestLogging: true }),
    // Each request's logger is made when it first logs a line (making the redacting child is not free: src/platform/logger.ts).
    childLoggerFactory: (logger, bindings, opts) => new LazyChildLogger(logger as unknown as Logger, bindings, opts) as unknown as typeof logger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : newRequestId();
    },
    // A path parameter longer than this is 414 URI_TOO_LONG before any handler runs; 500 leaves
    // room for the longest documented one (a 400-character UMA address, percent-encoded).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Errors raised before routing (bad URL, over-long parameter) and by Node's HTTP parser
    // (431, 400, 408) get the spec body and a request id like every other error.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: makeClientErrorHandler(newRequestId),
  }) as unknown as FastifyInstance;
}

/** The hooks every request passes: errors, text checks, JSON parsing, the route table, the request id header, the log line. */
function installRequestHooks(app: FastifyInstance, logger: AppDeps['logger']): void {
  installErrorHandling(app);
  // Text Postgres cannot store (NUL, unpaired surrogates) is refused at the edge, for every route,
  // before idempotency claims a key or a handler reads the database (docs/decisions.md, issue 11).
  // Hooks that never wait are written with `done`: no promise and no extra turn per request (issue 12).
  app.addHook('preHandler', (req, _reply, done) => {
    checkRequestText(req);
    done();
  });
  installJsonParsing(app);
  const routeTable: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeTable.push({ method: String(method), url: route.url });
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });
  // One log line per request (request bodies are never logged: they carry PII). The line holds only
  // the fields below — ids, the route template (never the URL), status, latency — so it is written by a
  // child without the redaction pass (docs/decisions.md "Issue 24 — the request line"); a handler's own
  // lines still go through req.log and its redaction. `reqId` is written once, here.
  const requestLine = logger.child({}, { redact: [] });
  app.addHook('onResponse', (req, reply, done) => {
    if (requestLine.isLevelEnabled('info')) {
      requestLine.info(
        { reqId: req.id, platformId: req.principal?.platformId, method: req.method, route: req.routeOptions.url ?? null, status: reply.statusCode, latencyMs: Math.round(reply.elapsedTime) },
        'request',
      );
    }
    done();
  });
}

/** The authenticated, versioned API scope (auth, Ctx, rate limit, Idempotency-Key, every module's routes), then the public routes. */
async function registerApi(app: FastifyInstance, deps: AppDeps, opts: BuildOptions): Promise<void> {
  const { config } = deps;
  await app.register(
    async (api) => {
      await registerPlatformAuth(api, {
        prisma: deps.prisma,
        redis: deps.redis,
        redisPrefix: config.REDIS_PREFIX,
        cacheTtlSeconds: config.AUTH_CACHE_TTL_SECONDS,
        cacheKey: config.AUTH_CACHE_KEY ?? processCacheKey,
        bus: deps.bus,
        resolveAgentToken: (token) => resolveAgentToken(deps, token),
      });
      api.decorateRequest('ctx', null as unknown as Ctx);
      api.addHook('onRequest', (req, _reply, done) => {
        const ctx = ctxFor(deps, req.principal.platformId);
        req.ctx = req.principal.agent ? { ...ctx, agent: req.principal.agent } : ctx;
        done();
      });
      await api.register(rateLimit, {
        global: true,
        max: config.RATE_LIMIT_MAX,
        timeWindow: config.RATE_LIMIT_WINDOW_MS,
        store: coalescingRedisStore(deps.redis, `${config.REDIS_PREFIX}:rl:`),
        keyGenerator: (req: FastifyRequest) => req.principal?.credentialId ?? req.ip,
        errorResponseBuilder: (_req, ctx) => {
          const err = new Error('Too many requests.') as Error & { statusCode: number; headers: Record<string, string> };
          err.statusCode = 429;
          err.headers = { 'retry-after': String(Math.ceil(ctx.ttl / 1000)) };
          return err;
        },
      });
      installIdempotency(api, {
        prisma: deps.prisma,
        redis: deps.redis,
        redisPrefix: config.REDIS_PREFIX,
        ttlHours: config.IDEMPOTENCY_TTL_HOURS,
        leaseMs: config.IDEMPOTENCY_LEASE_MS,
        faultInjection: config.FAULT_INJECTION,
      });
      installStrictQuery(api);
      for (const m of MODULES) if (m.routes) await m.routes(api, deps);
      if (opts.extendApi) await opts.extendApi(api, deps);
    },
    { prefix: config.API_BASE_PATH },
  );
  await app.register(
    async (pub) => {
      for (const m of MODULES) if (m.publicRoutes) await m.publicRoutes(pub, deps);
    },
    { prefix: config.API_BASE_PATH },
  );
}

/** Used when AUTH_CACHE_KEY is unset: each process then keeps its own cache entries. */
const processCacheKey = randomToken(32);

/** JSON bodies through Fastify's hardened parser; an empty body reads as "no body" (POST with no payload). */
function installJsonParsing(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    parse(req, body as string, done);
  });
}

function registerOperationalRoutes(app: FastifyInstance, deps: AppDeps) {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_req, reply) => {
    const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), 2000))]);
    const [pg, redis] = await Promise.all([
      timeout(deps.prisma.$queryRaw`SELECT 1`).then(() => 'ok', () => 'error'),
      timeout(deps.redis.ping()).then(() => 'ok', () => 'error'),
    ]);
    const ok = pg === 'ok' && redis === 'ok';
    reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'error', checks: { postgres: pg, redis } };
  });
  app.get('/openapi.yaml', async (_req, reply) => {
    reply.type('application/yaml');
    return readFileSync(OPENAPI_PATH, 'utf8');
  });
}

/**
 * /docs: "Try it out" calls the server the page was loaded from (a relative server URL, resolved by
 * the browser against this host, behind any proxy), not the document's example `localhost:3000`.
 */
async function registerDocs(app: FastifyInstance, basePath: string) {
  // The built server reads dist/openapi.json (written by `npm run build`): no YAML parse at start.
  const path = existsSync(OPENAPI_JSON_PATH) ? OPENAPI_JSON_PATH : OPENAPI_PATH;
  await app.register(swagger, { mode: 'static', specification: { path, baseDir: fileURLToPath(new URL('..', import.meta.url)) } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    transformSpecificationClone: true,
    transformSpecification: (spec) => ({ ...spec, servers: [{ url: basePath, description: 'This server' }] }),
  });
}

/**
 * HTTP Basic auth of the operator endpoints (/metrics, /admin/queues) with OPERATOR_USER and
 * OPERATOR_PASSWORD; undefined when they are not set, and those endpoints are then not served (404).
 */
function operatorAuth(config: AppDeps['config']) {
  const { OPERATOR_USER: user, OPERATOR_PASSWORD: password } = config;
  if (!user || !password) return undefined;
  const expected = hmacHex('operator', `${user}:${password}`);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers.authorization ?? '';
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
    const given = hmacHex('operator', decoded);
    if (!timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
      // Answered here, not thrown: bull-board installs its own error handler in its scope.
      reply.header('www-authenticate', 'Basic realm="operator"');
      return sendError(reply, 401, 'UNAUTHORIZED', 'Operator credentials are missing or invalid.');
    }
  };
}

/** bull-board at /admin/queues, behind the operator credentials. */
async function registerQueueDashboard(app: FastifyInstance, deps: AppDeps, guard: NonNullable<ReturnType<typeof operatorAuth>>) {
  // Imported only when the dashboard is on: bull-board costs ~0.3 s of start-up.
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
  ]);
  const serverAdapter = new FastifyAdapter();
  createBullBoard({ queues: Object.values(deps.queues).map((q) => new BullMQAdapter(q)), serverAdapter: serverAdapter as any });
  serverAdapter.setBasePath('/admin/queues');
  await app.register(async (scope) => {
    scope.addHook('onRequest', guard);
    await scope.register(serverAdapter.registerPlugin() as any, { prefix: '/admin/queues' });
  });
}

