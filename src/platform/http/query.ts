import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The query string the route accepts (its zod schema). Any other query parameter is refused
     * with 400 INVALID_INPUT before the handler runs; a route without it accepts none (issue 13:
     * a filter the server does not know is never silently ignored).
     */
    query?: z.ZodType;
  }
}

/** Every key a query schema names: objects, and the objects inside pipes, unions and wrappers. */
export function queryKeysOf(schema: z.ZodType): Set<string> {
  const out = new Set<string>();
  const visit = (s: unknown): void => {
    if (s instanceof z.ZodObject) {
      for (const k of Object.keys(s.shape)) out.add(k);
    } else if (s instanceof z.ZodPipe) {
      visit(s.in);
    } else if (s instanceof z.ZodUnion) {
      for (const o of s.options) visit(o);
    } else if (s instanceof z.ZodIntersection) {
      visit(s._zod.def.left);
      visit(s._zod.def.right);
    } else if (s && typeof s === 'object' && '_zod' in s) {
      const inner = (s as { _zod: { def: { innerType?: unknown; schema?: unknown } } })._zod.def;
      if (inner.innerType) visit(inner.innerType);
      else if (inner.schema) visit(inner.schema);
    }
  };
  visit(schema);
  return out;
}

const keyCache = new WeakMap<z.ZodType, Set<string>>();

/** 400 INVALID_INPUT naming each query parameter the route does not document. */
export function rejectUnknownQuery(req: FastifyRequest): void {
  const query = (req.query ?? {}) as Record<string, unknown>;
  const given = Object.keys(query);
  if (given.length === 0) return;
  const schema = req.routeOptions.config.query;
  let allowed = schema ? keyCache.get(schema) : undefined;
  if (schema && !allowed) keyCache.set(schema, (allowed = queryKeysOf(schema)));
  const unknown = given.filter((k) => !allowed?.has(k));
  if (unknown.length) {
    throw new ValidationError(
      unknown.map((field) => ({ field, message: 'Unknown query parameter.' })),
      `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
    );
  }
}

/** Installs the check on every route of the scope (the authenticated API). */
export function installStrictQuery(scope: FastifyInstance): void {
  scope.addHook('preValidation', (req, _reply, done) => {
    rejectUnknownQuery(req);
    done();
  });
}
