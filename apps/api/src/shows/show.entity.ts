import type { ShowRepeat } from '@radiobroadcaster/contracts';
import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/**
 * A scheduled show of a station: its first occurrence, its length, the owner's time zone and an
 * optional weekly repeat (expanded in that zone: the local start time holds across DST).
 */
@Entity({ name: 'shows' })
export class ShowEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'station_id', type: 'uuid' })
  stationId!: string;

  @Column({ type: 'varchar', length: 120 })
  title!: string;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ name: 'starts_at', type: 'timestamptz' })
  startsAt!: Date;

  @Column({ name: 'duration_minutes', type: 'integer' })
  durationMinutes!: number;

  @Column({ name: 'time_zone', type: 'varchar', length: 64 })
  timeZone!: string;

  /** `{weekdays, until?, count?, except?}` as the contract has it, or null: one occurrence. */
  @Column({ type: 'jsonb', nullable: true })
  repeat!: ShowRepeat | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
