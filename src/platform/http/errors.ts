import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import findMyWay from 'find-my-way';
import { DomainError, type FieldError } from '../errors.js';
import { isPoolExhausted } from '../db.js';

export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string, details?: Record<string, unknown>) {
  const body: ErrorBody = { status, code, message };
  if (details) body.details = details;
  return reply.status(status).type('application/json').send(body);
}

/** Fastify's own failures (parsing, limits, content type) mapped to the spec's error body. */
function fromFastifyError(err: FastifyError): ErrorBody | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'INVALID_INPUT', message: 'Request body is not valid JSON.', details: { errors: [{ field: '(body)', message: err.message }] as FieldError[] } };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content type is not supported; send application/json.' };
    case 'FST_ERR_REQ_FILE_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Uploaded file is too large.' };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send multipart/form-data.' };
    default:
      break;
  }
  if (err.statusCode === 401) {
    return { status: 401, code: 'UNAUTHORIZED', message: 'Credentials are missing or invalid.' };
  }
  if (err.code === 'FST_ERR_RATE_LIMIT' || err.statusCode === 429) {
    return { status: 429, code: 'RATE_LIMITED', message: 'Too many requests.' };
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: err.statusCode, code: err.statusCode === 400 ? 'INVALID_INPUT' : 'REQUEST_ERROR', message: err.message };
  }
  return undefined;
}

/**
 * The one place failures become responses: DomainErrors as they are, framework errors mapped,
 * anything else a 500 `INTERNAL_ERROR` whose body names only the request id.
 */
export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof DomainError) {
      if (err.headers) {
        // Script clients (the dashboard sends X-Requested-With) handle 401 themselves: without
        // WWW-Authenticate the browser shows no native password prompt.
        const { 'www-authenticate': challenge, ...rest } = err.headers;
        reply.headers(challenge && req.headers['x-requested-with'] ? rest : err.headers);
      }
      if (err.status >= 500) req.log.error({ err }, 'domain error');
      return sendError(reply, err.status, err.code, err.message, err.details);
    }
    if (isPoolExhausted(err)) {
      req.log.warn({ err }, 'database pool exhausted');
      reply.header('retry-after', '1');
      return sendError(reply, 503, 'SERVICE_UNAVAILABLE', 'The service is busy; retry shortly.');
    }
    const mapped = fromFastifyError(err);
    if (mapped) {
      if (mapped.status === 429 && (err as any).headers) reply.headers((err as any).headers);
      return sendError(reply, mapped.status, mapped.code, mapped.message, mapped.details);
    }
    req.log.error({ err }, 'unhandled error');
    return sendError(reply, 500, 'INTERNAL_ERROR', 'An internal error occurred.', { requestId: req.id });
  });

  // A shadow router of every registered route tells "unknown path" (404) from "known path,
  // wrong method" (405).
  const shadow = findMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      try {
        shadow.on(m as any, route.url, () => undefined);
      } catch {
        // duplicate registration (HEAD alongside GET): harmless for lookup
      }
    }
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].filter((m) => shadow.find(m as any, path));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, 405, 'METHOD_NOT_ALLOWED', `Method ${req.method} is not allowed on this path.`);
    }
    return sendError(reply, 404, 'NOT_FOUND', 'No such endpoint.');
  });
}
