import type { WebhookDeliveryStatus } from '@radiobroadcaster/contracts';
import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** One event for one endpoint, with its retry state: the durable queue and the delivery log. */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_webhook_event_key', ['webhookId', 'eventId'], { unique: true })
@Index('webhook_deliveries_log_idx', ['webhookId', 'createdAt'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @Column({ name: 'event_id', type: 'varchar', length: 64 })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 40 })
  eventType!: string;

  /** The exact body sent on every attempt. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: WebhookDeliveryStatus;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  /** A node that claimed the delivery holds it until then; after a crash another node retries. */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
