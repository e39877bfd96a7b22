import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Station, UserStationsResponse } from '@radiobroadcaster/contracts';
import { StationsService } from './stations.service.js';

@ApiTags('stations')
@Controller('api/users/:username/stations')
export class UserStationsController {
  constructor(@Inject(StationsService) private readonly stations: StationsService) {}

  @Get()
  @ApiOperation({ summary: "A broadcaster's stations, live first" })
  list(@Param('username') username: string): Promise<UserStationsResponse> {
    return this.stations.byUsername(username);
  }

  @Get(':slug')
  @ApiOperation({ summary: 'One station by its public address username/slug' })
  get(@Param('username') username: string, @Param('slug') slug: string): Promise<Station> {
    return this.stations.byUsernameAndSlug(username, slug);
  }
}
