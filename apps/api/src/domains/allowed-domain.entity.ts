import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'allowed_domains' })
@Index('allowed_domains_user_domain_key', ['userId', 'domain'], { unique: true })
export class AllowedDomainEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** Normalised: lowercase ASCII (punycode), no scheme, port, path or trailing dot; may start with `*.`. */
  @Column({ type: 'varchar', length: 255 })
  domain!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
