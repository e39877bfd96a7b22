import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, type Relation } from 'typeorm';
import { StationEntity } from '../stations/station.entity.js';

/** A station's settings for software other than the browser studio: its stream key and HTTP stream. */
@Entity({ name: 'station_radio_settings' })
export class RadioSettingsEntity {
  @PrimaryColumn({ name: 'station_id', type: 'uuid' })
  stationId!: string;

  @OneToOne(() => StationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'station_id',
    foreignKeyConstraintName: 'station_radio_settings_station_id_fkey',
  })
  station!: Relation<StationEntity>;

  /** SHA-256 (hex) of the current stream key; the key itself is never stored. */
  @Column({ name: 'stream_key_hash', type: 'varchar', length: 64 })
  streamKeyHash!: string;

  /** Random input of the key's derivation (useless without the server's secret). */
  @Column({ name: 'stream_key_nonce', type: 'varchar', length: 32 })
  streamKeyNonce!: string;

  @Column({ name: 'stream_key_rotated_at', type: 'timestamptz' })
  streamKeyRotatedAt!: Date;

  /**
   * The plain HTTP stream URL plays anywhere (radio apps, VLC, pages that hide their address);
   * otherwise only signed links do. Null: the default, on while the owner lists no allowed domains.
   */
  @Column({ name: 'public_stream_url', type: 'boolean', nullable: true, default: null })
  publicStreamUrl!: boolean | null;
}
