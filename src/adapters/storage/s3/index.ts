import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { DocumentStorage } from '../port.js';

export interface S3Options {
  /** e.g. `http://127.0.0.1:9000` (MinIO) or unset for AWS. */
  endpoint?: string;
  region: string;
  bucket: string;
  /**
   * Static keys (with an optional session token). Unset: the AWS SDK's default credential chain —
   * AWS_* variables, web identity (EKS IRSA / pod identity), ECS task role, EC2 instance profile,
   * SSO/shared config — refreshed by the SDK before they expire.
   */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<host>/<key>`; most S3-compatible stores want this. */
  forcePathStyle: boolean;
  /** Bound of one call, retries included. */
  timeoutMs: number;
  /** Attempts of one call (the SDK's standard retry strategy: throttling, 5xx and network errors, with jittered backoff). */
  maxAttempts?: number;
}

/** An S3 (or S3-compatible) bucket through the official AWS SDK v3. */
export function s3Storage(opts: S3Options): DocumentStorage {
  const client = new S3Client({
    region: opts.region,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    forcePathStyle: opts.forcePathStyle,
    maxAttempts: opts.maxAttempts ?? 3,
    ...(opts.accessKeyId && opts.secretAccessKey
      ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey, ...(opts.sessionToken ? { sessionToken: opts.sessionToken } : {}) } }
      : {}),
  });
  const signal = (callSignal?: AbortSignal) => (callSignal ? AbortSignal.any([callSignal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs));
  const fail = (what: string, err: unknown) => {
    const e = err as S3ServiceException;
    const status = e.$metadata?.httpStatusCode;
    return new Error(`S3 ${what} failed: ${status ? `HTTP ${status} ` : ''}${e.name ?? ''} ${e.message ?? ''}`.trim());
  };
  return {
    id: 's3',
    async put(key, bytes, contentType, callOpts) {
      try {
        await client.send(new PutObjectCommand({ Bucket: opts.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length }), { abortSignal: signal(callOpts?.signal) });
      } catch (err) {
        throw fail('PUT', err);
      }
    },
    async get(key, callOpts) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: opts.bucket, Key: key }), { abortSignal: signal(callOpts?.signal) });
        return Buffer.from(await res.Body!.transformToByteArray());
      } catch (err) {
        if (err instanceof NoSuchKey || (err as S3ServiceException).$metadata?.httpStatusCode === 404) return undefined;
        throw fail('GET', err);
      }
    },
    async delete(key, callOpts) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket: opts.bucket, Key: key }), { abortSignal: signal(callOpts?.signal) });
      } catch (err) {
        if ((err as S3ServiceException).$metadata?.httpStatusCode === 404) return;
        throw fail('DELETE', err);
      }
    },
    async close() {
      client.destroy();
    },
  };
}
