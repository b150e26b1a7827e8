/**
 * The one check of an identifier spliced into dynamic SQL — a table, column or CTE name, never a value
 * (values are bind parameters). Identifiers come from code, not input; a name that is not lowercase
 * snake_case is a programmer error and stops the statement before it is sent. Returns the name as given
 * (callers quote it where they need to).
 */
export function sqlIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not an SQL identifier: ${JSON.stringify(name)}`);
  return name;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
