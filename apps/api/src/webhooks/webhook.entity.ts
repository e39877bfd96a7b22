import type { WebhookEventType } from '@radiobroadcaster/contracts';
import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** A station's endpoint: where its events are POSTed, signed with `secret`. */
@Entity({ name: 'webhooks' })
@Index('webhooks_station_id_idx', ['stationId'])
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'station_id', type: 'uuid' })
  stationId!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  description!: string;

  @Column({ type: 'text', array: true })
  events!: WebhookEventType[];

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Why the server paused it (its address is refused by the outbound policy), or null. */
  @Column({ name: 'paused_reason', type: 'varchar', length: 300, nullable: true })
  pausedReason!: string | null;

  /** `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
  @Column({ type: 'varchar', length: 100 })
  secret!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
