import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { checksumAddress as toChecksumAddress } from '../../../src/platform/crypto-addresses.js';

describe('toChecksumAddress (EIP-55, src/platform/crypto-addresses.ts, on @noble/hashes instead of viem)', () => {
  it("gives the EIP-55 specification's examples from any case", () => {
    for (const a of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb']) {
      expect(toChecksumAddress(a.toLowerCase())).toBe(a);
      expect(toChecksumAddress(`0x${a.slice(2).toUpperCase()}`)).toBe(a);
    }
  });

  it("agrees with viem's getAddress on random addresses", () => {
    for (let i = 0; i < 200; i++) {
      const a = `0x${randomBytes(20).toString('hex')}`;
      expect(toChecksumAddress(a)).toBe(getAddress(a));
    }
  });

  it('refuses what is not 20 bytes of hex', () => {
    for (const bad of ['0x123', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeZ']) expect(() => toChecksumAddress(bad)).toThrow();
  });
});
