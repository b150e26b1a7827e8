import type { ConnectionOptions, Worker } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';

/**
 * A capability of the service: its queues, its authenticated API routes, any public routes
 * (hosted pages, device-code redemption) and its queue processors. Adding a capability is adding
 * one module to src/modules.ts; app.ts and workers.ts need no change.
 */
export interface DomainModule {
  name: string;
  /** BullMQ queues this module owns; producers reach them with `queueOf(deps, name)`. */
  queues?: readonly string[];
  /** Routes under the versioned base path, behind platform auth and tenant scoping. */
  routes?: (api: FastifyInstance, deps: AppDeps) => Promise<void>;
  /** Routes outside auth (their own proof of access: a single-use token, a device code). */
  publicRoutes?: (app: FastifyInstance, deps: AppDeps) => Promise<void>;
  /** Queue processors and periodic loops, started by the worker process. */
  workers?: (deps: AppDeps, connection: ConnectionOptions) => Worker[];
  /** Periodic work (relays, sweeps): called repeatedly by the worker; returns how many items it handled. */
  loops?: Array<{ name: string; intervalMs: (deps: AppDeps) => number; run: (deps: AppDeps) => Promise<number>; batch?: (deps: AppDeps) => number }>;
}
