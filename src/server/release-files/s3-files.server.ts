import type { S3Client } from '@aws-sdk/client-s3';
import { type BucketFiles, checkedFile, FILE_NAME, type PruneOptions } from './release-files.port';

export interface S3FilesOptions {
  bucket: string;
  /** Prepended to every key: '' or ending with '/'. Each file is `<prefix>files/<sha256>`. */
  prefix: string;
  region: string;
  /** An S3-compatible store (MinIO, R2, …), addressed path-style. Unset: AWS S3. */
  endpoint?: string;
  /** Unset: the SDK's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, the instance's role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Milliseconds to connect, and of silence before a request is given up. */
  timeouts?: { connectMs?: number; requestMs?: number };
}

const CONNECTION_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 15_000;
/** Requests in flight at once, reading or writing a release's files. */
const AT_ONCE = 8;
/** DeleteObjects takes at most this many keys. */
const DELETE_BATCH = 1000;
/** A deletion still unanswered after this is abandoned: a prune deletes only while its lease lasts (release-store). */
const DELETE_MS = 30_000;

/** The message of an SDK or network error (Node reports a refused dual-stack connect as an AggregateError). */
function errorText(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(errorText))].join('; ');
  if (error instanceof Error) {
    const text = error.message || (error as NodeJS.ErrnoException).code || error.name;
    return error.name && error.name !== 'Error' && !text.startsWith(error.name) ? `${error.name}: ${text}` : text;
  }
  return String(error);
}

/** Runs `work` on every item, at most AT_ONCE at a time; rejects with the first failure. */
async function eachAtOnce<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, items.length) }, worker));
}

const isMissing = (error: unknown) =>
  error instanceof Error &&
  (error.name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404);

/**
 * Release files as objects `<prefix>files/<sha256>` in an S3 bucket (or an S3-compatible store's), through
 * `@aws-sdk/client-s3`: PutObject, GetObject, ListObjectsV2 and DeleteObjects. Every object read back is checked
 * against its name; pruning deletes only objects written before `writtenBefore` that no kept release holds.
 */
export function createS3Files({ bucket, prefix, region, endpoint, credentials, timeouts = {} }: S3FilesOptions): BucketFiles {
  const folder = `${prefix}files/`;
  // The SDK is loaded with the first release stored or read, not with the server.
  let sdk: Promise<typeof import('@aws-sdk/client-s3')> | undefined;
  let client: S3Client | undefined;
  const connect = async () => {
    sdk ??= import('@aws-sdk/client-s3');
    const s3 = await sdk;
    client ??= new s3.S3Client({
      region,
      // S3-compatible stores answer at one host for every bucket: the bucket goes in the path.
      ...(endpoint ? { endpoint, forcePathStyle: true } : { followRegionRedirects: true }),
      ...(credentials ? { credentials } : {}),
      maxAttempts: 3,
      // Checksums only where S3 requires one (DeleteObjects): not every S3-compatible store knows the newer ones, and
      // each file is checked against its SHA-256 when read.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        connectionTimeout: timeouts.connectMs ?? CONNECTION_TIMEOUT_MS,
        requestTimeout: timeouts.requestMs ?? REQUEST_TIMEOUT_MS,
        throwOnRequestTimeout: true,
      },
    });
    return { s3, client };
  };
  const where = `${endpoint ? `${endpoint}, ` : ''}bucket ${bucket}`;
  const failed = (what: string, error: unknown) =>
    new Error(`Release files not ${what} ${where}: ${errorText(error)}`, { cause: error });

  return {
    kind: 'bucket',
    name: `S3 bucket ${bucket}${endpoint ? ` at ${endpoint}` : ` (${region})`}`,
    async put(files) {
      const { s3, client } = await connect();
      try {
        await eachAtOnce([...files], async ([hash, bytes]) => {
          await client.send(
            new s3.PutObjectCommand({
              Bucket: bucket,
              Key: folder + hash,
              Body: bytes,
              ContentType: 'application/octet-stream',
            }),
          );
        });
      } catch (error) {
        throw failed('written to', error);
      }
    },
    async get(hashes) {
      const { s3, client } = await connect();
      const found = new Map<string, Uint8Array>();
      await eachAtOnce(hashes, async (hash) => {
        let bytes: Uint8Array;
        try {
          const answer = await client.send(new s3.GetObjectCommand({ Bucket: bucket, Key: folder + hash }));
          bytes = (await answer.Body?.transformToByteArray()) ?? new Uint8Array();
        } catch (error) {
          if (isMissing(error)) return;
          throw failed('read from', error);
        }
        found.set(hash, checkedFile(hash, bytes));
      });
      return found;
    },
    async prune(keep, { writtenBefore, mayDelete }: PruneOptions) {
      const { s3, client } = await connect();
      const doomed: string[] = [];
      try {
        let token: string | undefined;
        do {
          const page = await client.send(
            new s3.ListObjectsV2Command({ Bucket: bucket, Prefix: folder, ...(token ? { ContinuationToken: token } : {}) }),
          );
          for (const object of page.Contents ?? []) {
            const hash = object.Key?.slice(folder.length) ?? '';
            // Not one of ours (another name under the prefix), held by a kept release, or written too lately to tell.
            if (!FILE_NAME.test(hash) || keep.has(hash)) continue;
            if (!object.LastModified || object.LastModified >= writtenBefore) continue;
            doomed.push(folder + hash);
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      } catch (error) {
        throw failed('listed in', error);
      }
      let deleted = 0;
      for (let i = 0; i < doomed.length; i += DELETE_BATCH) {
        if (!(await mayDelete())) break;
        const batch = doomed.slice(i, i + DELETE_BATCH);
        let errors: { Key?: string | undefined; Code?: string | undefined; Message?: string | undefined }[];
        try {
          const answer = await client.send(
            new s3.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
            { abortSignal: AbortSignal.timeout(DELETE_MS) },
          );
          errors = answer.Errors ?? [];
        } catch (error) {
          throw failed('deleted from', error);
        }
        deleted += batch.length - errors.length;
        const [first] = errors;
        if (first) {
          throw new Error(
            `Release files not deleted from ${where}: ${errors.length} of ${batch.length} refused (${first.Key}: ${first.Code}${first.Message ? `, ${first.Message}` : ''})`,
          );
        }
      }
      return deleted;
    },
  };
}
