import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ImageKind } from '@radiobroadcaster/contracts';

/** An uploaded picture after resizing: WebP bytes, served immutable under its id. */
@Entity({ name: 'images' })
@Index('images_owner_id_idx', ['ownerId'])
export class ImageEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: ImageKind;

  @Column({ name: 'content_type', type: 'varchar', length: 32 })
  contentType!: string;

  @Column({ type: 'integer' })
  width!: number;

  @Column({ type: 'integer' })
  height!: number;

  @Column({ type: 'bytea' })
  bytes!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
