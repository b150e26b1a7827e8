/**
 * Which implementation serves what, as written in the environment (pure parsing; the registry loads
 * and validates the adapters). A spec is a built-in adapter's name (`sandbox`, `http`) or a module
 * path (`./adapters/my-bank.js`, `/opt/rails/bank.mjs`), resolved against the process's cwd.
 */

/**
 * Rails a payment can go out on: the spec's paymentRail values (decisions B§3), the chains of
 * on-chain destinations and Lightning (the service picks those from the asset, fee-rules.ts).
 */
export const KNOWN_RAILS = [
  'ACH', 'ACH_COLOMBIA', 'BANK_TRANSFER', 'BRE_B', 'CIPS', 'FAST', 'FASTER_PAYMENTS', 'FEDNOW', 'INSTAPAY', 'MOBILE_MONEY',
  'NEFT', 'PAYNOW', 'PESONET', 'PIX', 'RTGS', 'RTP', 'SEPA', 'SEPA_INSTANT', 'SPEI', 'SWIFT', 'UNIONPAY', 'UPI', 'WIRE',
  'BITCOIN', 'ETHEREUM', 'SOLANA', 'BASE', 'POLYGON', 'TRON', 'PLASMA', 'SPARK', 'LIGHTNING',
] as const;

/** Built-in adapters by kind (src/adapters/registry.ts builds them; a test keeps the two in step). */
export const BUILT_IN_ADAPTERS = {
  rail: ['sandbox', 'http'],
  kyc: ['sandbox'],
  fx: ['sandbox'],
  notifier: ['sandbox'],
  liveness: ['sandbox', 'none'],
  storage: ['local', 's3'],
  'beneficiary-check': ['sandbox', 'none'],
  'bank-link': ['sandbox', 'plaid', 'none'],
  'stablecoin-issuer': ['sandbox', 'http-issuer', 'none'],
  uma: ['sandbox', 'uma-protocol'],
  deposits: ['sandbox'],
  'card-issuer': ['sandbox', 'http', 'none'],
  collection: ['sandbox', 'http', 'none'],
} as const;

/** Why a spec cannot name an adapter of this kind (unknown built-in), or undefined. */
export function specProblem(kind: keyof typeof BUILT_IN_ADAPTERS, spec: string): string | undefined {
  const s = parseSpec(spec);
  if (s.type === 'module' || (BUILT_IN_ADAPTERS[kind] as readonly string[]).includes(s.name)) return undefined;
  return `unknown ${kind} adapter "${s.name}" (built-in: ${BUILT_IN_ADAPTERS[kind].join(', ')}; or a module path such as ./adapters/my-${kind}.js)`;
}

export type AdapterSpec = { type: 'builtin'; name: string } | { type: 'module'; path: string };

export function isModuleSpec(spec: string): boolean {
  return spec.startsWith('.') || spec.startsWith('/') || spec.includes('/') || /\.(c|m)?[jt]s$/.test(spec);
}

export function parseSpec(spec: string): AdapterSpec {
  const s = spec.trim();
  return isModuleSpec(s) ? { type: 'module', path: s } : { type: 'builtin', name: s };
}

export interface RailSelection {
  /** The spec of rails RAIL_ADAPTERS does not name (`*:<spec>`; default `sandbox`). */
  fallback: string;
  /** Rail → spec, for the rails named. */
  byRail: Record<string, string>;
}

/**
 * `RAIL_ADAPTERS=ACH:sandbox,RTP:./adapters/my-bank.js,WIRE:http,*:sandbox`. Returns the problems
 * found (unknown rail, empty spec, a rail named twice) instead of throwing, so loadConfig can list
 * them with the rest.
 */
export function parseRailAdapters(raw: string): { selection: RailSelection; problems: string[] } {
  const selection: RailSelection = { fallback: 'sandbox', byRail: {} };
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const colon = part.indexOf(':');
    const rail = colon > 0 ? part.slice(0, colon).trim().toUpperCase() : '';
    const spec = colon > 0 ? part.slice(colon + 1).trim() : '';
    if (!rail || !spec) {
      problems.push(`"${part}" must be RAIL:adapter (e.g. RTP:./adapters/my-bank.js or *:sandbox)`);
      continue;
    }
    if (rail !== '*' && !(KNOWN_RAILS as readonly string[]).includes(rail)) {
      problems.push(`unknown rail ${rail} (known: ${KNOWN_RAILS.join(', ')}, or * for every other rail)`);
      continue;
    }
    const unknown = specProblem('rail', spec);
    if (unknown) {
      problems.push(`${rail}: ${unknown}`);
      continue;
    }
    if (seen.has(rail)) {
      problems.push(`${rail} is named twice`);
      continue;
    }
    seen.add(rail);
    if (rail === '*') selection.fallback = spec;
    else selection.byRail[rail] = spec;
  }
  return { selection, problems };
}

/**
 * An adapter's own settings: every `ADAPTER_<ID>_<KEY>` variable as `KEY`, over the JSON object in
 * `ADAPTER_<ID>_JSON` (its values turned into strings). Throws on JSON that is not an object.
 */
export function adapterSettings(env: Readonly<Record<string, string | undefined>>, envId: string): Record<string, string> {
  const prefix = `ADAPTER_${envId}_`;
  const out: Record<string, string> = {};
  const json = env[`${prefix}JSON`];
  if (json !== undefined && json.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error(`${prefix}JSON: must be a JSON object`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${prefix}JSON: must be a JSON object`);
    for (const [k, v] of Object.entries(parsed)) if (v !== null && v !== undefined) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith(prefix) && k !== `${prefix}JSON` && v !== undefined) out[k.slice(prefix.length)] = v;
  }
  return out;
}
