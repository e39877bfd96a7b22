import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AllowedDomainEntity } from './allowed-domain.entity.js';
import { DomainsController } from './domains.controller.js';
import { DomainsRepository } from './domains.repository.js';
import { DomainsService } from './domains.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([AllowedDomainEntity])],
  controllers: [DomainsController],
  providers: [DomainsRepository, DomainsService],
  exports: [DomainsService],
})
export class DomainsModule {}
