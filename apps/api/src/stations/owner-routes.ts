import {
  applyDecorators,
  Body,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Put,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { StationId } from '@radiobroadcaster/contracts';
import type { z } from 'zod';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SessionGuard } from '../auth/session.guard.js';
import { ZodPipe } from '../common/zod.pipe.js';

const VERBS = { GET: Get, POST: Post, PUT: Put, DELETE: Delete };

/**
 * A route for signed-in callers (401 otherwise): the verb and path, its OpenAPI summary, and the
 * status of a success where it is not the verb's default.
 */
export function OwnerRoute(
  verb: keyof typeof VERBS,
  path: string,
  summary?: string,
  status?: number,
): MethodDecorator {
  return applyDecorators(
    VERBS[verb](path),
    ...(status ? [HttpCode(status)] : []),
    UseGuards(SessionGuard),
    ...(summary ? [ApiOperation({ summary })] : []),
  );
}

/** The request body, validated with a contract schema (400 naming every offending field). */
export const ZodBody = (schema: z.ZodType): ParameterDecorator => Body(new ZodPipe(schema));

/** What the owner of a station may do with each of its things of one kind (relays, webhooks, recordings). */
export interface OwnedItems<T, U> {
  update(userId: string, body: U): Promise<T>;
  remove(userId: string, id: string): Promise<void>;
}

/** A kind of thing a station's owner also lists and adds. */
export interface OwnedCollection<T, C, U> extends OwnedItems<T, U> {
  list(userId: string, stationId: string): Promise<T[]>;
  create(userId: string, body: C): Promise<T>;
}

export interface OwnedItemRoutes {
  /** The kind's segment below `api/stations/` (`relays`: `api/stations/relays/update`, …). */
  path: string;
  /** The name and schema of the id in the delete route (`api/stations/relays/:relayId`). */
  id: { param: string; schema: z.ZodType<string> };
  update: { schema: z.ZodType; summary: string };
  remove: { summary?: string };
}

export interface OwnedCollectionRoutes<K extends string> extends OwnedItemRoutes {
  list: { key: K; summary: string; noStore?: boolean };
  create: { schema: z.ZodType; summary: string };
}

/**
 * A controller base with the owner's `POST api/stations/{path}/update` (200 with the changed
 * item) and `DELETE api/stations/{path}/:{id}` (204); the service checks the caller owns the station.
 */
export function OwnedItemsController<T, U>(routes: OwnedItemRoutes) {
  abstract class ItemsController {
    constructor(readonly items: OwnedItems<T, U>) {}

    @OwnerRoute('POST', `api/stations/${routes.path}/update`, routes.update.summary, 200)
    update(@CurrentUser() user: AuthContext, @ZodBody(routes.update.schema) body: U): Promise<T> {
      return this.items.update(user.userId, body);
    }

    @OwnerRoute(
      'DELETE',
      `api/stations/${routes.path}/:${routes.id.param}`,
      routes.remove.summary,
      204,
    )
    async remove(
      @CurrentUser() user: AuthContext,
      @Param(routes.id.param, new ZodPipe(routes.id.schema)) id: string,
    ): Promise<void> {
      await this.items.remove(user.userId, id);
    }
  }
  return ItemsController;
}

/**
 * {@link OwnedItemsController} plus the owner's `GET api/stations/:id/{path}` (`{[key]: items}`)
 * and `POST api/stations/{path}` (201 with the new item).
 */
export function OwnedCollectionController<T, C, U, K extends string>(
  routes: OwnedCollectionRoutes<K>,
) {
  const listRoute = OwnerRoute('GET', `api/stations/:id/${routes.path}`, routes.list.summary);
  abstract class CollectionController extends OwnedItemsController<T, U>(routes) {
    constructor(readonly collection: OwnedCollection<T, C, U>) {
      super(collection);
    }

    @(routes.list.noStore
      ? applyDecorators(listRoute, Header('Cache-Control', 'no-store'))
      : listRoute)
    async list(
      @CurrentUser() user: AuthContext,
      @Param('id', new ZodPipe(StationId)) stationId: string,
    ): Promise<Record<K, T[]>> {
      return { [routes.list.key]: await this.collection.list(user.userId, stationId) } as Record<
        K,
        T[]
      >;
    }

    @OwnerRoute('POST', `api/stations/${routes.path}`, routes.create.summary)
    create(@CurrentUser() user: AuthContext, @ZodBody(routes.create.schema) body: C): Promise<T> {
      return this.collection.create(user.userId, body);
    }
  }
  return CollectionController;
}
