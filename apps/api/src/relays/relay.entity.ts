import type { RelayFormat, RelayKind } from '@radiobroadcaster/contracts';
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** An outbound relay: where a station is pushed while it is live (Icecast, AzuraCast, Shoutcast 2). */
@Entity({ name: 'station_relays' })
export class StationRelayEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'station_id', type: 'uuid' })
  stationId!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: RelayKind;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 200 })
  mount!: string;

  @Column({ type: 'varchar', length: 200 })
  username!: string;

  /** AES-256-GCM ciphertext of the source password ({@link RelaySecrets}); never sent to clients. */
  @Column({ name: 'password_encrypted', type: 'text' })
  passwordEncrypted!: string;

  @Column({ type: 'varchar', length: 8 })
  format!: RelayFormat;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Why the server paused it (its address is refused by the outbound policy), or null. */
  @Column({ name: 'paused_reason', type: 'varchar', length: 300, nullable: true })
  pausedReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
