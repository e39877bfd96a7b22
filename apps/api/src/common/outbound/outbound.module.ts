import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { OutboundPolicy } from './outbound-policy.js';

/** The one {@link OutboundPolicy} of the app; modules that connect on users' behalf import this. */
@Module({
  providers: [
    {
      provide: OutboundPolicy,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new OutboundPolicy({
          allowPrivateNetworks: config.outbound.allowPrivateNetworks,
          lookup: config.outbound.lookup,
        }),
    },
  ],
  exports: [OutboundPolicy],
})
export class OutboundModule {}
