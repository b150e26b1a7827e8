/**
 * UMA payer-data keys (UMAD-07: `name`, `email`, `identifier`, `compliance`, and camelCase extensions)
 * against the spec's CustomerInfoFieldName vocabulary used in `requiredPayerDataFields`.
 */
const SPECIAL: Record<string, string> = { FULL_NAME: 'name', EMAIL: 'email', IDENTIFIER: 'identifier' };
const SPECIAL_BACK: Record<string, string> = Object.fromEntries(Object.entries(SPECIAL).map(([k, v]) => [v, k]));

export function payerDataKeyOf(fieldName: string): string {
  return SPECIAL[fieldName] ?? fieldName.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Undefined for keys the service always sends itself (identifier, compliance). */
export function fieldNameOfPayerDataKey(key: string): string | undefined {
  if (key === 'identifier' || key === 'compliance') return undefined;
  return SPECIAL_BACK[key] ?? key.replace(/([A-Z])/g, '_$1').toUpperCase();
}
