import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { lazy } from '../common/lazy.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/** The AWS SDK's S3 client, loaded at the first bucket operation rather than at start-up. */
const loadS3 = lazy(() => import('@aws-sdk/client-s3'));

/** Where a recording's file is: the recordings directory, or the S3-compatible bucket. */
export type StorageKind = 'local' | 's3';

/** A bucket object ready to send: status, headers and the body (null for HEAD and 416). */
export interface ObjectResponse {
  status: 200 | 206 | 416;
  headers: Record<string, string>;
  body: Readable | null;
}

/**
 * The files of recordings. Every recording is written to the recordings directory (flushed every
 * second, so a crash keeps what was said); with a bucket configured, a finished one is uploaded
 * whole and its local copy removed. Uploading at the end rather than multipart while recording:
 * S3 parts are at least 5 MB (ten minutes of a 64 kb/s stream), so the local file would be the
 * crash-safe copy anyway, and one PUT of a finished file is simpler to retry.
 */
@Injectable()
export class RecordingStorage implements OnApplicationShutdown {
  /** The bucket's client, made at its first use; null without a bucket. */
  private readonly s3: (() => Promise<S3Client>) | null;
  /** The client once made (closed at shutdown). */
  private client: S3Client | null = null;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly base: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const s3 = config.recordings.s3;
    this.base = resolve(config.recordings.dir);
    this.bucket = s3?.bucket ?? '';
    this.prefix = s3?.prefix ?? '';
    this.s3 = s3
      ? lazy(async () => {
          const { S3Client } = await loadS3();
          this.client = new S3Client({
            region: s3.region,
            endpoint: s3.endpoint,
            // Other S3-compatible servers (MinIO, Ceph, Garage…) address buckets by path.
            forcePathStyle: s3.endpoint !== undefined,
            credentials: s3.credentials,
            // Checksums only where S3 requires them: not every compatible server knows the newer ones.
            requestChecksumCalculation: 'WHEN_REQUIRED',
            responseChecksumValidation: 'WHEN_REQUIRED',
          });
          return this.client;
        })
      : null;
  }

  /** Whether finished recordings go to a bucket. */
  get bucketConfigured(): boolean {
    return this.s3 !== null;
  }

  /** The local (staging) file of a recording. */
  localPath(key: string): string {
    const path = resolve(join(this.base, key));
    if (!path.startsWith(`${this.base}/`)) throw new Error('recording path outside the directory');
    return path;
  }

  /** Uploads the finished local file to the bucket, then removes the local copy. */
  async upload(key: string): Promise<void> {
    if (!this.s3) throw new Error('no bucket configured');
    const path = this.localPath(key);
    const { size } = await stat(path);
    const [s3, { PutObjectCommand }] = await Promise.all([this.s3(), loadS3()]);
    await s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.prefix + key,
        Body: createReadStream(path),
        ContentLength: size,
        ContentType: 'audio/ogg',
      }),
    );
    await rm(path, { force: true });
  }

  async remove(kind: StorageKind, key: string): Promise<void> {
    if (kind === 's3' && this.s3) {
      const [s3, { DeleteObjectCommand }] = await Promise.all([this.s3(), loadS3()]);
      await s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
    }
    await rm(this.localPath(key), { force: true });
  }

  /**
   * The object, or the byte range the client asked for (HTTP Range, passed on to the bucket), as
   * the response to send: the audio goes through this server, so listeners never talk to a third
   * party.
   */
  async object(key: string, range: string | undefined, head: boolean): Promise<ObjectResponse> {
    if (!this.s3) throw new Error('no bucket configured');
    const Key = this.prefix + key;
    const [s3, { GetObjectCommand, HeadObjectCommand, S3ServiceException }] = await Promise.all([
      this.s3(),
      loadS3(),
    ]);
    try {
      const o = head
        ? await s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key }))
        : await s3.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range: range }));
      const contentRange = 'ContentRange' in o ? o.ContentRange : undefined;
      const headers: Record<string, string> = {
        'Content-Type': 'audio/ogg',
        'Accept-Ranges': 'bytes',
      };
      if (o.ContentLength !== undefined) headers['Content-Length'] = String(o.ContentLength);
      if (contentRange) headers['Content-Range'] = contentRange;
      if (o.ETag) headers['ETag'] = o.ETag;
      if (o.LastModified) headers['Last-Modified'] = o.LastModified.toUTCString();
      const body = 'Body' in o && o.Body ? (o.Body as Readable) : null;
      return { status: contentRange ? 206 : 200, headers, body };
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 416) {
        return { status: 416, headers: {}, body: null };
      }
      throw err;
    }
  }

  onApplicationShutdown(): void {
    this.client?.destroy();
  }
}
