import { describe, expect, it } from 'vitest';
import { compareNames } from '../../../src/adapters/beneficiary-check/sandbox/index.js';
import {
  EXTERNAL_ACCOUNT_STATUSES, externalAccountTransitions, identityOf, initialStatus, isOwnershipProvable, isScaCustomer, nextStatus,
  type ExternalAccountEvent, type ExternalAccountStatus,
} from '../../../src/domains/external-accounts/external-accounts.model.js';
import { openAccountInfo, sealAccountInfo } from '../../../src/domains/external-accounts/account-info.sealing.js';
import { evmAddress } from './fixtures.js';

/** Every event against every status: the whole external-account lifecycle, as data. */
const EXPECTED: Record<ExternalAccountEvent, Partial<Record<ExternalAccountStatus, ExternalAccountStatus>>> = {
  beneficiaryCheckPassed: { PENDING: 'ACTIVE' },
  beneficiaryCheckNeedsReview: { PENDING: 'UNDER_REVIEW' },
  challengeRestarted: { UNVERIFIED: 'PENDING_OWNERSHIP_VERIFICATION' },
  signatureVerified: { PENDING_OWNERSHIP_VERIFICATION: 'ACTIVE' },
  signatureRejected: { PENDING_OWNERSHIP_VERIFICATION: 'UNVERIFIED' },
  livenessPassed: { PENDING_OWNERSHIP_VERIFICATION: 'ACTIVE' },
  livenessFailed: { PENDING_OWNERSHIP_VERIFICATION: 'UNVERIFIED' },
  reviewApproved: { UNDER_REVIEW: 'ACTIVE' },
  deactivate: { PENDING: 'INACTIVE', ACTIVE: 'INACTIVE', PENDING_OWNERSHIP_VERIFICATION: 'INACTIVE', UNVERIFIED: 'INACTIVE', UNDER_REVIEW: 'INACTIVE' },
  reactivate: { INACTIVE: 'ACTIVE' },
};

describe('external account transitions', () => {
  it('covers every event', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(externalAccountTransitions).sort());
  });
  for (const event of Object.keys(EXPECTED) as ExternalAccountEvent[]) {
    for (const status of EXTERNAL_ACCOUNT_STATUSES) {
      it(`${event} from ${status} → ${EXPECTED[event][status] ?? 'refused'}`, () => {
        expect(nextStatus(status, event)).toBe(EXPECTED[event][status]);
      });
    }
  }
});

describe('initial status and ownership', () => {
  it('FIRST_PARTY self-custody wallets under counterparty rules await ownership proof; everything else is PENDING', () => {
    expect(initialStatus({ accountType: 'BASE_WALLET', ownershipType: 'FIRST_PARTY' }, true)).toBe('PENDING_OWNERSHIP_VERIFICATION');
    expect(initialStatus({ accountType: 'BASE_WALLET', ownershipType: 'FIRST_PARTY' }, false)).toBe('PENDING');
    expect(initialStatus({ accountType: 'BASE_WALLET', ownershipType: 'THIRD_PARTY' }, true)).toBe('PENDING');
    expect(initialStatus({ accountType: 'BASE_WALLET', ownershipType: 'FIRST_PARTY', vaspName: 'Some VASP' }, true)).toBe('PENDING');
    expect(initialStatus({ accountType: 'LIGHTNING', ownershipType: 'FIRST_PARTY' }, true)).toBe('PENDING');
    expect(initialStatus({ accountType: 'USD_ACCOUNT', ownershipType: 'FIRST_PARTY' }, true)).toBe('PENDING');
    for (const t of ['ETHEREUM_WALLET', 'POLYGON_WALLET', 'PLASMA_WALLET', 'SOLANA_WALLET', 'TRON_WALLET', 'SPARK_WALLET'] as const) {
      expect(isOwnershipProvable({ accountType: t, ownershipType: 'FIRST_PARTY' })).toBe(true);
    }
  });
});

describe('duplicate identity', () => {
  it('ignores case of EVM addresses and IBAN formatting is normalised before; differs by type and identifier', () => {
    expect(identityOf('BASE_WALLET', { address: evmAddress })).toBe(identityOf('BASE_WALLET', { address: evmAddress.toLowerCase() }));
    expect(identityOf('BASE_WALLET', { address: evmAddress })).not.toBe(identityOf('POLYGON_WALLET', { address: evmAddress }));
    expect(identityOf('USD_ACCOUNT', { routingNumber: '021000021', accountNumber: '1' })).not.toBe(identityOf('USD_ACCOUNT', { routingNumber: '011000015', accountNumber: '1' }));
    expect(identityOf('EUR_ACCOUNT', { iban: 'DE89370400440532013000', bankName: 'A' })).toBe(identityOf('EUR_ACCOUNT', { iban: 'DE89370400440532013000', bankName: 'B' }));
  });
});

describe('SCA regions (A8)', () => {
  it('EEA region or address country, or the platform flag', () => {
    expect(isScaCustomer({ region: 'DE' }, false)).toBe(true);
    expect(isScaCustomer({ region: null, addressCountry: 'NO' }, false)).toBe(true);
    expect(isScaCustomer({ region: 'US', addressCountry: 'FR' }, false)).toBe(false);
    expect(isScaCustomer({ region: 'US' }, true)).toBe(true);
    expect(isScaCustomer({}, false)).toBe(false);
  });
});

describe('sandbox name matching', () => {
  it.each([
    ['Ada Lovelace', 'ada lovelace', 'MATCHED'],
    ['José Álvarez', 'Jose Alvarez', 'MATCHED'],
    ['Acme Ltd', 'ACME', 'PARTIAL_MATCH'],
    ['Ada King Lovelace', 'Ada Lovelace', 'PARTIAL_MATCH'],
    ['A. Lovelace', 'Ada Lovelace', 'PARTIAL_MATCH'],
    ['Ada Lovelaze', 'Ada Lovelace', 'PARTIAL_MATCH'],
    ['Charles Babbage', 'Ada Lovelace', 'NOT_MATCHED'],
  ])('%s vs %s → %s', (a, b, expected) => {
    expect(compareNames(a, b)).toBe(expected);
  });
});

describe('sealing', () => {
  it('round-trips and leaves non-identifier fields readable', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const sealed = sealAccountInfo({ iban: 'DE89370400440532013000', bankName: 'X' }, key);
    expect(sealed.iban).toMatch(/^enc:v1:/);
    expect(sealed.bankName).toBe('X');
    expect(openAccountInfo(sealed, key)).toEqual({ iban: 'DE89370400440532013000', bankName: 'X' });
    expect(sealAccountInfo({ iban: 'x' }, undefined)).toEqual({ iban: 'x' });
    expect(() => openAccountInfo(sealed, Buffer.alloc(32, 8).toString('base64'))).toThrow();
  });
});
