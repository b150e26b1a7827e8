import type { DocumentStorage } from '../port.js';
import { sha256Hex, signRequest, type SigV4Credentials } from './sigv4.js';

export interface S3Options {
  /** e.g. `http://127.0.0.1:9000` (MinIO) or unset for AWS (`https://s3.<region>.amazonaws.com`). */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<host>/<key>`; most S3-compatible stores want this. */
  forcePathStyle: boolean;
  timeoutMs: number;
  now?: () => Date;
}

/** An S3-compatible object store through plain signed HTTP requests (no SDK: three verbs are all we need). */
export function s3Storage(opts: S3Options): DocumentStorage {
  const base = new URL(opts.endpoint ?? `https://s3.${opts.region}.amazonaws.com`);
  const creds: SigV4Credentials = { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey, region: opts.region, service: 's3' };
  const now = opts.now ?? (() => new Date());
  const urlOf = (key: string) => {
    const path = key.split('/').map(encodeURIComponent).join('/');
    const u = new URL(base.toString());
    const prefix = u.pathname.replace(/\/$/, '');
    if (opts.forcePathStyle) u.pathname = `${prefix}/${encodeURIComponent(opts.bucket)}/${path}`;
    else {
      u.hostname = `${opts.bucket}.${u.hostname}`;
      u.pathname = `${prefix}/${path}`;
    }
    return u;
  };
  async function send(method: string, key: string, body?: Buffer, extra: Record<string, string> = {}, callSignal?: AbortSignal): Promise<Response> {
    const url = urlOf(key);
    const headers = signRequest({ method, url, headers: extra, payloadHash: sha256Hex(body ?? '') }, creds, now());
    delete headers.host; // fetch sets it from the URL
    return fetch(url, { method, headers, body: body ? new Uint8Array(body) : undefined, signal: callSignal ? AbortSignal.any([callSignal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs) });
  }
  const fail = async (what: string, res: Response) => new Error(`S3 ${what} failed: HTTP ${res.status} ${(await res.text().catch(() => '')).slice(0, 200)}`);
  return {
    id: 's3',
    async put(key, bytes, contentType, callOpts) {
      const res = await send('PUT', key, bytes, { 'content-type': contentType, 'content-length': String(bytes.length) }, callOpts?.signal);
      if (!res.ok) throw await fail('PUT', res);
      await res.arrayBuffer();
    },
    async get(key, callOpts) {
      const res = await send('GET', key, undefined, {}, callOpts?.signal);
      if (res.status === 404) {
        await res.arrayBuffer();
        return undefined;
      }
      if (!res.ok) throw await fail('GET', res);
      return Buffer.from(await res.arrayBuffer());
    },
    async delete(key, callOpts) {
      const res = await send('DELETE', key, undefined, {}, callOpts?.signal);
      if (!res.ok && res.status !== 404) throw await fail('DELETE', res);
      await res.arrayBuffer();
    },
  };
}
