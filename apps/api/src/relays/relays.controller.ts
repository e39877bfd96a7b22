import { Controller, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CreateRelayRequest, type Relay, UpdateRelayRequest } from '@radiobroadcaster/contracts';
import { z } from 'zod';
import { OwnedCollectionController } from '../stations/owner-routes.js';
import { RelaysService } from './relays.service.js';

@ApiTags('relays')
@Controller()
export class RelaysController extends OwnedCollectionController<
  Relay,
  CreateRelayRequest,
  UpdateRelayRequest,
  'relays'
>({
  path: 'relays',
  id: { param: 'relayId', schema: z.string().uuid({ message: 'must be a UUID' }) },
  list: {
    key: 'relays',
    summary: "A station's outbound relays with their status (owner only)",
    noStore: true,
  },
  create: {
    schema: CreateRelayRequest,
    summary:
      'Add a relay {stationId, kind: icecast|azuracast|shoutcast, url, mount, username, password, format?}; the password is never returned',
  },
  update: {
    schema: UpdateRelayRequest,
    summary: 'Change a relay: url, mount, credentials, format, enabled',
  },
  remove: { summary: 'Remove a relay (a running push stops at once)' },
}) {
  constructor(@Inject(RelaysService) relays: RelaysService) {
    super(relays);
  }
}
