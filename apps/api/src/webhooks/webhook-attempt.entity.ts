import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One HTTP request of a delivery and what the receiver answered. */
@Entity({ name: 'webhook_attempts' })
@Index('webhook_attempts_delivery_idx', ['deliveryId', 'attemptedAt'])
export class WebhookAttemptEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId!: string;

  @Column({ name: 'attempted_at', type: 'timestamptz', default: () => 'now()' })
  attemptedAt!: Date;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  error!: string | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @Column({ name: 'response_body', type: 'varchar', length: 1024, nullable: true })
  responseBody!: string | null;
}
