/** One field-level problem, as the spec's `details.errors[]` entry. */
export interface FieldError {
  field: string;
  constraint?: Record<string, unknown>;
  message?: string;
}

/**
 * An expected failure: carries the spec's error `code`, the HTTP status and optional details.
 * Only the central error handler (platform/http/errors.ts) turns it into a response.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldError[], message = 'Input is invalid.', code = 'INVALID_INPUT') {
    super(400, code, message, { errors });
  }
}

export class BadRequestError extends DomainError {
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(400, code, message, details);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(code = 'UNAUTHORIZED', message = 'Credentials are missing or invalid.') {
    super(401, code, message, undefined, code === 'UNAUTHORIZED' ? { 'www-authenticate': 'Basic realm="api"' } : undefined);
  }
}

export class ForbiddenError extends DomainError {
  constructor(code = 'FORBIDDEN', message = 'This credential may not perform this action.') {
    super(403, code, message);
  }
}

/** Raised both for a missing resource and for another platform's resource: the two are indistinguishable. */
export class NotFoundError extends DomainError {
  constructor(code: string, message: string) {
    super(404, code, message);
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(409, code, message, details);
  }
}

export class NotImplementedError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(501, 'NOT_IMPLEMENTED', message, details);
  }
}

export class RateLimitedError extends DomainError {
  constructor(retryAfterSeconds: number, code = 'RATE_LIMITED', message = 'Too many requests.') {
    super(429, code, message, { retryAfterSeconds }, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class InvariantError extends Error {}

/** A programmer error: the request gets a generic 500, the message goes only to the log. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}
