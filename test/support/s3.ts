import type { S3FileStorageOptions } from '../../src/adapters/outbound/storage/S3FileStorage.js';
import { externalService } from './env.js';

/**
 * The S3 store `.ci/services.sh` starts (Ceph's RADOS Gateway, its bucket and user), as the `s3`
 * engine's options; undefined when `SVC_TEST_S3_ENDPOINT` is unset (the suite is skipped).
 */
export function testS3Options(): S3FileStorageOptions | undefined {
  const endpoint = externalService('SVC_TEST_S3_ENDPOINT');
  if (endpoint === undefined) return undefined;
  const required = (name: string): string => {
    const value = process.env[name]?.trim();
    if (!value) throw new Error(`${name} must be set with SVC_TEST_S3_ENDPOINT (.ci/services.sh start prints it)`);
    return value;
  };
  return {
    endpoint,
    region: process.env.SVC_TEST_S3_REGION?.trim() || 'us-east-1',
    bucket: required('SVC_TEST_S3_BUCKET'),
    accessKeyId: required('SVC_TEST_S3_ACCESS_KEY_ID'),
    secretAccessKey: required('SVC_TEST_S3_SECRET_ACCESS_KEY'),
    forcePathStyle: true,
  };
}
