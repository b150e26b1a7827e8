import { createHash, randomFillSync } from 'node:crypto';
import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

/** Resource type prefixes of the spec (Conventions) and decisions Part B §1. */
export type ResourceType =
  | 'Platform'
  | 'Credential'
  | 'Token'
  | 'Customer'
  | 'ExternalAccount'
  | 'InternalAccount'
  // Embedded wallets (issue 28): REF's AuthMethod, AuthSession and DelegatedKey ids, and OTP/passkey challenges.
  | 'AuthMethod'
  | 'AuthSession'
  | 'DelegatedKey'
  | 'AuthChallenge'
  | 'DelegatedKeySignature' // anchor 28b: a card authorization signed through a delegated key
  | 'Quote'
  | 'Transaction'
  | 'Card'
  | 'CardTransaction'
  | 'CardEvent'
  | 'CardReveal'
  | 'Verification'
  | 'BeneficialOwner'
  | 'Document'
  | 'Webhook'
  | 'WebhookAttempt'
  | 'Lookup'
  | 'Request'
  | 'ScaChallenge'
  | 'PlatformConfig'
  | 'FeeConfig'
  | 'LedgerEntry'
  | 'Agent'
  | 'AgentAction'
  | 'Deposit'
  | 'FundingInstruction'
  | 'AgentDeviceCode'
  | 'SigningCredential'
  | 'ScaFactor'
  | 'ScaSession'
  | 'ScaFactorReset'
  | 'KycLink'
  | 'SandboxSend'
  | 'Invitation'
  | 'BulkCustomerImport'
  | 'BankLink'
  // issue 26: stablecoin issuance
  | 'StablecoinProviderAccount'
  | 'Stablecoin'
  | 'StablecoinOperation'
  | 'SandboxIssuerOperation'
  // issue 26 (26a): pay-in coordinates and the credits reported on them
  | 'CollectionCoordinates'
  | 'CollectionCredit';

/**
 * Random bytes for ids, drawn from the CSPRNG 4 KiB at a time: `uuid` asks crypto.getRandomValues for
 * 16 bytes per id, which cost more than the rest of the id (every request has one; docs/decisions.md
 * "Measurements behind the code").
 */
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;
function random16(): Uint8Array {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 16;
  return pool.subarray(poolOffset - 16, poolOffset);
}

/** uuid's own v7 state, kept here: the millisecond and the counter that orders ids within it. */
const v7State = { msecs: -Infinity, seq: 0 };

/** `<ResourceType>:<uuid>` with a time-ordered UUIDv7, so ids sort by creation (also within a millisecond). */
export function newId(type: ResourceType): string {
  return `${type}:${newUuid()}`;
}

/**
 * A bare time-ordered UUIDv7 (no type prefix), for the rows that are never named outside the database and
 * store their key as `uuid` (16 bytes instead of ~50 as text): ledger journals and entries, status changes
 * (issue 30, 30c).
 */
export function newUuid(): string {
  const random = random16();
  const now = Date.now();
  // As uuid's v7() without options: a new millisecond starts the counter at random, within one it counts up.
  if (now > v7State.msecs) {
    v7State.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    v7State.msecs = now;
  } else {
    v7State.seq = (v7State.seq + 1) | 0;
    if (v7State.seq === 0) v7State.msecs++;
  }
  return uuidv7({ random, msecs: v7State.msecs, seq: v7State.seq });
}

/**
 * The 16-byte key a resource's id is stored under in the columns that only find rows by it and never show it
 * (issue 30, 30f): webhook events' `resource_id`, status changes' `resource_id`, ledger journals'
 * `reference_id`. The uuid of `<Type>:<uuid>` (uuids are unique across types), a bare uuid itself (an id stored
 * as `uuid`); any other id (a test's own, an older format) its MD5 as a uuid, so every id has one key. The database computes the same with
 * `svc_resource_key(text)` (migration 20270115000000_resource_key); test/platform/resource-key.test.ts holds them equal.
 */
export function resourceKey(id: string): string {
  const colon = id.indexOf(':');
  const tail = id.slice(colon + 1);
  if (colon > 0 && /^[A-Za-z]+$/.test(id.slice(0, colon)) && UUID_TEXT.test(tail)) return tail.toLowerCase();
  if (colon < 0 && UUID_TEXT.test(id)) return id.toLowerCase();
  const h = createHash('md5').update(id).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is `<type>:<uuid>`; used to refuse malformed ids before they reach the database. */
export function isId(type: ResourceType, value: string): boolean {
  const prefix = `${type}:`;
  return value.startsWith(prefix) && uuidValidate(value.slice(prefix.length));
}

/**
 * Platforms are keyed by a bare UUIDv7 in the code and the database (`platform_id uuid`, issue 30 30e);
 * operators see and type `Platform:<uuid>` (CLI output and arguments). The label is also what the
 * Idempotency-Key fingerprint and lease name, so both read as they did before the column became a uuid.
 */
export function platformLabel(platformId: string): string {
  return `Platform:${platformId}`;
}

/** The uuid of `Platform:<uuid>` or of a bare uuid; null for anything else. */
export function platformUuid(value: string): string | null {
  const bare = value.startsWith('Platform:') ? value.slice('Platform:'.length) : value;
  return uuidValidate(bare) ? bare.toLowerCase() : null;
}

/**
 * A job's data as it is today: jobs queued before platform ids were stored as uuid (migration
 * 20270114000000_platform_id_uuid) name their platform `Platform:<uuid>`. Each queue's processor reads its
 * data through this once, so a job that waited in Redis across the upgrade still runs.
 */
export function currentJobData<T>(data: T): T {
  const p = (data as { platformId?: unknown } | null)?.platformId;
  return typeof p === 'string' && p.startsWith('Platform:') ? { ...data, platformId: p.slice('Platform:'.length) } : data;
}
