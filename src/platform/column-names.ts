/**
 * The schema maps each model field (camelCase) to a snake_case column: the conversions raw SQL on a
 * hot path needs both ways (state-machine.ts, one-statement.ts, raw-rows.ts). Memoized: the names are
 * code's, a few hundred at most.
 */
const camel = new Map<string, string>();
const snake = new Map<string, string>();

/** `platform_id` → `platformId`. */
export function camelCase(column: string): string {
  let out = camel.get(column);
  if (out === undefined) camel.set(column, (out = column.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())));
  return out;
}

/** `platformId` → `platform_id`. */
export function snakeCase(field: string): string {
  let out = snake.get(field);
  if (out === undefined) snake.set(field, (out = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)));
  return out;
}
