import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import findMyWay from 'find-my-way';
import { DomainError, type FieldError } from '../errors.js';
import { driverCause, isPoolExhausted } from '../db.js';

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

const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2037']);
const UNAVAILABLE_DRIVER_KINDS = new Set(['TooManyConnections', 'DatabaseNotReachable', 'DatabaseDoesNotExist', 'ConnectionClosed']);
/** SQLSTATE: too_many_connections, cannot_connect_now, admin_shutdown, crash_shutdown, connection_failure. */
const UNAVAILABLE_SQLSTATES = new Set(['53300', '57P03', '57P01', '57P02', '08006', '08001', '08004']);

/**
 * PostgreSQL refused or lost the connection (too many clients, starting up or shutting down,
 * unreachable): the service is unavailable for a moment, the request was not wrong. A 503 with
 * Retry-After, like an exhausted pool, rather than a 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && UNAVAILABLE_PRISMA_CODES.has(e.code)) return true;
  const cause = driverCause(err);
  return (typeof cause?.kind === 'string' && UNAVAILABLE_DRIVER_KINDS.has(cause.kind)) || (typeof cause?.originalCode === 'string' && UNAVAILABLE_SQLSTATES.has(cause.originalCode));
}

/** The spec code of a 4xx the framework (Fastify, its plugins, Node's HTTP parser) raised. */
export const FRAMEWORK_CODES: Record<number, string> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  411: 'LENGTH_REQUIRED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
};

const bodyError = (message: string, detail: string): ErrorBody => ({
  status: 400,
  code: 'INVALID_INPUT',
  message,
  details: { errors: [{ field: '(body)', message: detail.slice(0, 300) }] as FieldError[] },
});

/** Fastify's own failures (parsing, limits, content type, routing) mapped to the spec's error body. */
export function fromFastifyError(err: FastifyError): ErrorBody | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return bodyError('Request body is not valid JSON.', err.message);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return bodyError('Request body size does not match Content-Length.', err.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content type is not supported; send application/json.' };
    case 'FST_ERR_REQ_FILE_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Uploaded file is too large.' };
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send multipart/form-data.' };
    case 'FST_FILES_LIMIT':
      return { status: 400, code: 'INVALID_INPUT', message: 'Input is invalid.', details: { errors: [{ field: 'file', constraint: { maxItems: 1 }, message: 'Send exactly one file.' }] } };
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The multipart body has too many parts.' };
    case 'FST_INVALID_JSON_FIELD_ERROR':
    case 'FST_PROTO_VIOLATION':
    case 'FST_MP_PREMATURE_CLOSE':
      return bodyError('The multipart body could not be read.', err.message);
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'INVALID_INPUT', message: 'The URL is not valid.', details: { errors: [{ field: '(url)', message: 'A path segment is not valid percent-encoded UTF-8.' }] } };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, code: 'URI_TOO_LONG', message: 'A path parameter is too long.' };
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
    return { status: err.statusCode, code: FRAMEWORK_CODES[err.statusCode] ?? 'REQUEST_ERROR', message: err.message };
  }
  // The multipart parser (busboy) throws plain errors for a broken body, on every multipart route.
  if (typeof err.message === 'string' && MULTIPART_PARSE_ERROR.test(err.message)) return bodyError('The multipart body could not be read.', err.message);
  return undefined;
}

// "The needle cannot have…": a boundary over 254 characters (RFC 2046 allows 70), refused by busboy's search.
const MULTIPART_PARSE_ERROR = /^(Multipart: Boundary not found|Boundary required|Unexpected end of multipart data|Malformed part header|Part terminated early|The needle cannot have a length bigger than)/;

/**
 * `frameworkErrors` (Fastify option): errors raised before routing — a URL that is not valid
 * percent-encoded UTF-8 (400), a path parameter over `maxParamLength` (414). Fastify answers these
 * outside the hooks, so the request id header is set here.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', req.id);
  const mapped = fromFastifyError(err);
  if (mapped) return sendError(reply, mapped.status, mapped.code, mapped.message, mapped.details);
  req.log.error({ err }, 'framework error');
  return sendError(reply, 500, 'INTERNAL_ERROR', 'An internal error occurred.', { requestId: req.id });
}

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (headers over
 * `maxHeaderSize` → 431, a malformed request line or header, an invalid Content-Length, a request
 * timeout → 408). The answer is still the spec body with a request id (`clientErrorHandler`).
 */
export function makeClientErrorHandler(genId: () => string) {
  return function clientErrorHandler(this: { log?: { debug: (o: object, m: string) => void } }, err: NodeJS.ErrnoException, socket: Socket) {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    let status = 400;
    let message = 'The request could not be parsed.';
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      status = 408;
      message = 'The request took too long to arrive.';
    } else if (err.code === 'HPE_HEADER_OVERFLOW') {
      status = 431;
      message = 'The request headers (or URL) are too large.';
    } else if (err.code === 'HPE_URI_TOO_LONG') {
      status = 414;
      message = 'The URL is too long.';
    }
    this.log?.debug({ err: { code: err.code, message: err.message } }, 'client error');
    const requestId = genId();
    const body = JSON.stringify({ status, code: FRAMEWORK_CODES[status] ?? 'INVALID_INPUT', message } satisfies ErrorBody);
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  };
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
    if (isPoolExhausted(err) || isDatabaseUnavailable(err)) {
      req.log.warn({ err }, 'database busy or unreachable');
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
