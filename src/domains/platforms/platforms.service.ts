import type { PrismaClient } from '../../platform/db.js';
import { isUniqueViolation } from '../../platform/db.js';
import { newId, newUuid } from '../../platform/ids.js';
import { hashSecret, randomToken } from '../../platform/secrets.js';
import { PERMISSIONS, type Permission, type PlatformFlags } from './platforms.model.js';
import { DEFAULT_CURRENCIES, seedCurrencyConfigs } from './currency-config.js';
import { openInternalAccounts } from '../ledger/index.js';
import { syncLookups, platformOfLookup } from '../../platform/tenant-lookups.js';

export interface CreatedPlatform {
  /** The bare uuid (the database's and the code's key); shown to operators through `platformLabel`. */
  platformId: string;
  credentialId: string;
  clientId: string;
  /** Shown once; only its scrypt hash is stored. */
  clientSecret: string;
}

export interface CreatePlatformInput extends Partial<PlatformFlags> {
  name: string;
  clientId?: string;
  clientSecret?: string;
  permissions?: Permission[];
  /** Name of the first API token (GET /tokens). */
  credentialName?: string;
}

/** Creates a platform with one credential. Operator path (CLI), not an API endpoint. */
export async function createPlatform(prisma: PrismaClient, input: CreatePlatformInput): Promise<CreatedPlatform> {
  // A bare uuid: `platform_id` is a uuid column (30e); operators see it as `Platform:<uuid>` (platformLabel).
  const platformId = newUuid();
  const credentialId = newId('Token');
  const clientId = input.clientId ?? `cli_${randomToken(12)}`;
  const clientSecret = input.clientSecret ?? `sec_${randomToken(32)}`;
  const secretHash = await hashSecret(clientSecret);
  await prisma.$transaction(async (tx) => {
    await tx.platform.create({
      data: {
        id: platformId,
        name: input.name,
        isRegulated: input.isRegulated ?? false,
        counterpartyRules: input.counterpartyRules ?? false,
        scaRegion: input.scaRegion ?? false,
      },
    });
    const credential = await tx.platformCredential.create({
      data: { id: credentialId, platformId, clientId, name: input.credentialName ?? 'Platform credential', secretHash, permissions: [...(input.permissions ?? PERMISSIONS)] },
    });
    await syncLookups(tx, 'platform_credentials', null, credential);
    await seedCurrencyConfigs(tx, platformId);
    // Decision Part B §5.1: the platform holds one internal account per supported currency.
    await openInternalAccounts(tx, platformId, null, DEFAULT_CURRENCIES);
  });
  return { platformId, credentialId, clientId, clientSecret };
}

/** Whether any platform holds `clientId`: one keyed read of its lookup (issue 29: no read across every platform's credentials). */
export async function clientIdExists(prisma: PrismaClient, clientId: string): Promise<boolean> {
  return (await platformOfLookup(prisma, 'PLATFORM_CLIENT_ID', clientId)) !== null;
}

