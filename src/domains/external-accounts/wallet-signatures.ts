import { createPublicKey, verify as verifyEd25519 } from 'node:crypto';
import { bech32m } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils';
import { bytesToHex } from '@noble/hashes/utils';
import { base58, base58check, hexToBytes, isHex, keccak256, personalMessageHash, recoverAddress } from '../../platform/crypto-addresses.js';
import type { SignatureFamily } from './external-accounts.model.js';

/**
 * Wallet-ownership proofs: a signature over the exact `messageToSign` of the outstanding challenge, checked
 * against the account's address. Pure (no I/O); any malformed signature is simply "does not verify".
 *
 * - EVM (Base, Ethereum, Polygon, Plasma): EIP-191 personal_sign, 65-byte hex; the recovered address must
 *   equal the account's (case-insensitive).
 * - Solana: Ed25519 over the UTF-8 message, signature base58 (64 bytes); the address is the public key.
 * - Bitcoin message signing, for Spark wallets (a Spark address carries the wallet's compressed secp256k1
 *   identity key): base64 65-byte compact signature over double-SHA-256 of the "Bitcoin Signed Message"
 *   preimage. `bip137` (default) accepts headers 27–42 (P2PKH, P2SH-P2WPKH, P2WPKH); `electrum` accepts
 *   27–34 only (Electrum always writes P2PKH headers). The recovered key must be the address's key; the
 *   address type a BIP-137 header names is not compared, since a Spark address is not a Bitcoin address.
 * - Tron: TIP-191 (TronWeb signMessageV2), "\x19TRON Signed Message:\n" + length prefix, Keccak-256,
 *   65-byte hex; the recovered key's Tron address (0x41 + 20 bytes, base58check) must be the account's.
 */

export type BitcoinSignatureScheme = 'bip137' | 'electrum';

export async function verifyWalletSignature(input: {
  family: SignatureFamily;
  address: string;
  message: string;
  signature: string;
  scheme?: BitcoinSignatureScheme;
}): Promise<boolean> {
  try {
    switch (input.family) {
      case 'EVM':
        return await verifyEvm(input.address, input.message, input.signature);
      case 'SOLANA':
        return verifySolana(input.address, input.message, input.signature);
      case 'BITCOIN':
        return verifyBitcoin(sparkIdentityKey(input.address), input.message, input.signature, input.scheme ?? 'bip137');
      case 'TRON':
        return await verifyTron(input.address, input.message, input.signature);
    }
  } catch {
    return false;
  }
}

async function verifyEvm(address: string, message: string, signature: string): Promise<boolean> {
  if (!isHex(signature) || hexToBytes(signature).length !== 65) return false;
  const recovered = recoverAddress(personalMessageHash(message), hexToBytes(signature));
  return recovered.toLowerCase() === address.toLowerCase();
}

function verifySolana(address: string, message: string, signature: string): boolean {
  const key = base58.decode(address);
  const sig = base58.decode(signature);
  if (key.length !== 32 || sig.length !== 64) return false;
  const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key).toString('base64url') }, format: 'jwk' });
  return verifyEd25519(null, Buffer.from(message, 'utf8'), publicKey, sig);
}

/** Bitcoin's CompactSize length prefix. */
function varint(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8);
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff);
}

export function bitcoinMessageHash(message: string): Uint8Array {
  const prefix = utf8ToBytes('\x18Bitcoin Signed Message:\n');
  const body = utf8ToBytes(message);
  return sha256(sha256(concatBytes(prefix, varint(body.length), body)));
}

function verifyBitcoin(expectedKey: Uint8Array, message: string, signature: string, scheme: BitcoinSignatureScheme): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) return false;
  const raw = Buffer.from(signature, 'base64');
  if (raw.length !== 65) return false;
  const header = raw[0]!;
  const maxHeader = scheme === 'electrum' ? 34 : 42;
  if (header < 27 || header > maxHeader) return false;
  const recovery = (header - 27) & 3;
  const point = secp256k1.Signature.fromCompact(raw.subarray(1)).addRecoveryBit(recovery).recoverPublicKey(bitcoinMessageHash(message));
  return Buffer.from(point.toRawBytes(true)).equals(Buffer.from(expectedKey));
}

/** The 33-byte compressed identity key inside a Spark address (protobuf field 1; see account-info.checksums.ts). */
export function sparkIdentityKey(address: string): Uint8Array {
  const decoded = bech32m.decode(address as `${string}1${string}`, false);
  const bytes = bech32m.fromWords(decoded.words);
  if (bytes.length < 35 || bytes[0] !== 0x0a || bytes[1] !== 0x21) throw new Error('not a Spark address');
  return bytes.subarray(2, 35);
}

export function tronMessageHash(message: string): `0x${string}` {
  const body = utf8ToBytes(message);
  return `0x${bytesToHex(keccak256(concatBytes(utf8ToBytes(`\x19TRON Signed Message:\n${body.length}`), body)))}`;
}

async function verifyTron(address: string, message: string, signature: string): Promise<boolean> {
  const hex = (signature.startsWith('0x') ? signature : `0x${signature}`) as `0x${string}`;
  if (!isHex(hex) || hexToBytes(hex).length !== 65) return false;
  const evm = recoverAddress(hexToBytes(tronMessageHash(message)), hexToBytes(hex));
  return evmToTronAddress(evm) === address;
}

export function evmToTronAddress(evmAddress: string): string {
  return base58check.encode(Uint8Array.from([0x41, ...hexToBytes(evmAddress)]));
}
