import { keccak_256 } from '@noble/hashes/sha3';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, concatBytes, hexToBytes as nobleHexToBytes, utf8ToBytes } from '@noble/hashes/utils';
import { secp256k1 } from '@noble/curves/secp256k1';
import { base58, createBase58check } from '@scure/base';

/**
 * The few EVM/base58 helpers the service needs, on the audited @noble/@scure libraries already in
 * use (issue 14 removed viem, bs58 and bs58check from the runtime).
 */
export const base58check = createBase58check(sha256);
export { base58 };

/** Decodes or returns undefined (bs58's decodeUnsafe). */
export function decodeUnsafe(codec: { decode(s: string): Uint8Array }, s: string): Uint8Array | undefined {
  try {
    return codec.decode(s);
  } catch {
    return undefined;
  }
}

export const isHex = (s: string): s is `0x${string}` => /^0x[0-9a-fA-F]*$/.test(s) && s.length % 2 === 0;
export const hexToBytes = (hex: string): Uint8Array => nobleHexToBytes(hex.startsWith('0x') ? hex.slice(2) : hex);
export const keccak256 = (bytes: Uint8Array): Uint8Array => keccak_256(bytes);

/** EIP-55 mixed-case checksum of a 20-byte address. */
export function checksumAddress(address: string): `0x${string}` {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error('an EVM address is 0x and 40 hex digits');
  const hex = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  return out as `0x${string}`;
}

/** The address of a secp256k1 key that signed `hash` (65-byte r ‖ s ‖ v signature, v 27/28 or 0/1). */
export function recoverAddress(hash: Uint8Array, signature: Uint8Array): `0x${string}` {
  if (signature.length !== 65) throw new Error('signature must be 65 bytes');
  const v = signature[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) throw new Error('bad recovery id');
  const point = secp256k1.Signature.fromCompact(signature.subarray(0, 64)).addRecoveryBit(recovery).recoverPublicKey(hash);
  const uncompressed = point.toRawBytes(false);
  return checksumAddress(`0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`);
}

/** EIP-191 personal_sign hash of a UTF-8 message. */
export function personalMessageHash(message: string): Uint8Array {
  const body = utf8ToBytes(message);
  return keccak_256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${body.length}`), body));
}
