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
