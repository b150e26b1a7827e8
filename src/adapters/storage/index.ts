import type { AppConfig } from '../../config.js';
import { ConfigError } from '../../config.js';
import type { DocumentStorage } from './port.js';
import { localStorage } from './local/index.js';
import { s3Storage } from './s3/index.js';

/**
 * The built-in storages by DOCUMENT_STORAGE name (src/adapters/registry.ts builds the configured one,
 * module paths included, at start); an S3 choice without bucket and keys stops start-up.
 */
export function documentStorageFor(config: AppConfig): DocumentStorage {
  switch (config.DOCUMENT_STORAGE) {
    case 'local':
      return localStorage(config.DOCUMENT_STORAGE_DIR);
    case 's3': {
      const problems: string[] = [];
      if (!config.S3_BUCKET) problems.push('S3_BUCKET: is required when DOCUMENT_STORAGE=s3');
      // Keys are optional (IAM roles, web identity, instance profiles through the SDK's chain), but come in pairs.
      if (!config.S3_ACCESS_KEY_ID !== !config.S3_SECRET_ACCESS_KEY) problems.push('S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: set both or neither (neither: the AWS default credential chain)');
      if (config.S3_SESSION_TOKEN && !config.S3_ACCESS_KEY_ID) problems.push('S3_SESSION_TOKEN: needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
      if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
      return s3Storage({
        endpoint: config.S3_ENDPOINT,
        region: config.S3_REGION,
        bucket: config.S3_BUCKET!,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        sessionToken: config.S3_SESSION_TOKEN,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        timeoutMs: config.S3_TIMEOUT_MS,
      });
    }
    default:
      throw new ConfigError(`Invalid configuration:\n  DOCUMENT_STORAGE: unknown built-in storage "${config.DOCUMENT_STORAGE}" (local, s3, or a module path)`);
  }
}
