import { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.js';

/** `a.b[0].c`: the dot path of the spec's `details.errors[].field`. */
export function fieldPath(path: readonly PropertyKey[], prefix?: string): string {
  let out = prefix ?? '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

function constraintOf(issue: z.core.$ZodIssue): Record<string, unknown> | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return { type: issue.expected };
    case 'too_small':
      return issue.origin === 'string' ? { minLength: Number(issue.minimum) } : issue.origin === 'array' ? { minItems: Number(issue.minimum) } : { minimum: Number(issue.minimum) };
    case 'too_big':
      return issue.origin === 'string' ? { maxLength: Number(issue.maximum) } : issue.origin === 'array' ? { maxItems: Number(issue.maximum) } : { maximum: Number(issue.maximum) };
    case 'invalid_format':
      return issue.format === 'regex' ? { pattern: (issue as any).pattern?.toString?.() } : { format: issue.format };
    case 'invalid_value':
      return { enum: issue.values };
    case 'custom':
      return issue.params && Object.keys(issue.params).length ? issue.params : undefined;
    default:
      return undefined;
  }
}

/** Every zod issue as a spec field error; one entry per invalid field. */
export function toFieldErrors(error: z.ZodError, prefix?: string): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ field: fieldPath([...issue.path, key], prefix), message: 'Unknown field.' });
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // Report the branch that got furthest rather than "no match".
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
      out.push(...toFieldErrors(new z.ZodError(best.map((i) => ({ ...i, path: [...issue.path, ...i.path] }))), prefix));
      continue;
    }
    const isMissing = issue.code === 'invalid_type' && (issue as any).input === undefined;
    const entry: FieldError = { field: fieldPath(issue.path, prefix), message: isMissing ? 'Required.' : issue.message };
    const constraint = constraintOf(issue);
    if (constraint) entry.constraint = constraint;
    out.push(entry);
  }
  // One entry per field: the first problem found for it.
  const seen = new Set<string>();
  return out.filter((e) => (seen.has(e.field) ? false : (seen.add(e.field), true)));
}

/** Parse input with a zod schema; a failure is a 400 `INVALID_INPUT` naming every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(toFieldErrors(result.error, prefix));
  return result.data;
}

/**
 * Characters PostgreSQL cannot store: NUL (refused in `text` and, as `\u0000`, in `jsonb`) and
 * unpaired UTF-16 surrogates (no UTF-8 form; the driver would silently turn them into U+FFFD).
 */
const UNSTORABLE_RE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(s: string): boolean {
  return !UNSTORABLE_RE.test(s);
}

const UNSTORABLE_RE_GLOBAL = new RegExp(UNSTORABLE_RE.source, 'g');
const MAX_GUARD_DEPTH = 64;

/**
 * Every string (and object key) in `value` Postgres could not store, as field errors on its dot
 * path (`prefix` names the root: a path parameter, a query name; '' for a body). Buffers (raw
 * bodies handed to adapters as bytes) are not text and are skipped.
 */
export function unstorableFields(value: unknown, prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  const message = 'Contains a character that cannot be stored (NUL or an unpaired UTF-16 surrogate).';
  const walk = (v: unknown, path: string, depth: number) => {
    if (out.length >= 20) return;
    if (typeof v === 'string') {
      if (!isStorableText(v)) out.push({ field: path || '(body)', message });
      return;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v) || v instanceof Uint8Array) return;
    if (depth > MAX_GUARD_DEPTH) {
      out.push({ field: path || '(body)', message: `Nested deeper than ${MAX_GUARD_DEPTH} levels.` });
      return;
    }
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, `${path}[${i}]`, depth + 1));
      return;
    }
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      const child = path ? `${path}.${k}` : k;
      if (!isStorableText(k)) {
        out.push({ field: child.replace(UNSTORABLE_RE_GLOBAL, '\uFFFD'), message: 'The field name contains a character that cannot be stored.' });
        continue;
      }
      walk(item, child, depth + 1);
    }
  };
  walk(value, prefix, 0);
  return out;
}

/** Throws 400 INVALID_INPUT naming every field of `value` Postgres could not store. */
export function assertStorable(value: unknown, prefix = ''): void {
  const errors = unstorableFields(value, prefix);
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * The edge check of every request (app.ts installs it once at the root, so it runs for every route
 * before idempotency claims a key or a handler reads the database): path parameters, query values,
 * the Idempotency-Key header and the parsed body must hold only text Postgres can store.
 */
export function checkRequestText(req: { params?: unknown; query?: unknown; body?: unknown; headers: Record<string, unknown> }): void {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries((req.params ?? {}) as Record<string, unknown>)) errors.push(...unstorableFields(value, name));
  for (const [name, value] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    if (!isStorableText(name)) errors.push({ field: name.replace(UNSTORABLE_RE_GLOBAL, '\uFFFD'), message: 'The parameter name contains a character that cannot be stored.' });
    else errors.push(...unstorableFields(value, name));
  }
  const key = req.headers['idempotency-key'];
  if (typeof key === 'string' && !isStorableText(key)) errors.push({ field: 'Idempotency-Key', message: 'Contains a character that cannot be stored.' });
  errors.push(...unstorableFields(req.body, ''));
  if (errors.length > 0) throw new ValidationError(errors);
}
