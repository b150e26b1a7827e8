import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/**
 * EIP-55 mixed-case checksum of a 20-byte hex address (`0x` + 40 hex digits, any case). Hand-written on
 * @noble/hashes' Keccak-256 instead of viem's `getAddress`: importing viem costs ~0.3 s of start-up, and
 * this is the only part of it the hot paths need (address validation, sandbox deposit addresses).
 */
export function toChecksumAddress(address: string): `0x${string}` {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error('not a 20-byte hex address');
  const lower = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out as `0x${string}`;
}
