import type { Config } from '../config.server';
import type { ReleaseFiles } from './release-files.port';
import { tableFiles } from './table-files.server';

/**
 * Where releases' files live, as the configuration says: a bucket (RELEASE_STORE=s3), else the database. The S3
 * adapter's code, and the SDK with it, is loaded only when chosen.
 */
export async function createReleaseFiles(config: Config['releaseFiles']): Promise<ReleaseFiles> {
  if (config.kind === 'database') return tableFiles;
  const { createS3Files } = await import('./s3-files.server');
  const { kind: _, ...options } = config;
  return createS3Files(options);
}
