import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import type { StationStatus, StationVisibility } from '@radiobroadcaster/contracts';
import { UserEntity } from '../users/user.entity.js';

@Entity({ name: 'stations' })
@Index('stations_broadcaster_slug_key', ['broadcasterId', 'slug'], { unique: true })
@Index('stations_discover_idx', ['isActive', 'lastActiveAt'])
export class StationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'broadcaster_id', type: 'uuid' })
  broadcasterId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'broadcaster_id', foreignKeyConstraintName: 'stations_broadcaster_id_fkey' })
  broadcaster!: Relation<UserEntity>;

  @Column({ type: 'varchar', length: 80 })
  name!: string;

  @Column({ type: 'varchar', length: 64 })
  slug!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'text', default: '' })
  schedule!: string;

  @Column({ name: 'cover_image_id', type: 'uuid', nullable: true })
  coverImageId!: string | null;

  @Column({ type: 'varchar', length: 16, default: 'offline' })
  status!: StationStatus;

  @Column({ name: 'is_active', type: 'boolean', default: false })
  isActive!: boolean;

  @Column({ name: 'now_playing_track', type: 'varchar', length: 200, nullable: true })
  nowPlayingTrack!: string | null;

  @Column({ name: 'now_playing_artist', type: 'varchar', length: 200, nullable: true })
  nowPlayingArtist!: string | null;

  @Column({ name: 'now_playing_album', type: 'varchar', length: 200, nullable: true })
  nowPlayingAlbum!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'last_active_at', type: 'timestamptz', nullable: true })
  lastActiveAt!: Date | null;

  /** public: listed; unlisted: anyone with the link, never listed; private: admitted listeners only. */
  @Column({ type: 'varchar', length: 16, default: 'public' })
  visibility!: StationVisibility;
}
