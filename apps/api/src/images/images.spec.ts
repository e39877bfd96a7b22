import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CreateStationResponse, Station } from '@radiobroadcaster/contracts';
import sharp from 'sharp';
import request from 'supertest';
import { signUp, startTestApp, type TestApp, type TestUser } from '../../testing/test-app.js';
import { wrap } from './image-processing.js';

/** A real picture: a diagonal gradient, so resizing and cropping have something to chew on. */
function picture(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  return sharp(Buffer.from(svg))[format]().toBuffer();
}

describe('cover art, avatars and social previews', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let station: Station;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signUp(t.url);
    other = await signUp(t.url);
    const res = await request(t.url)
      .post('/api/stations')
      .set(owner.auth)
      .send({ name: 'Night Owls & Friends' })
      .expect(201);
    station = (res.body as CreateStationResponse).station;
  });
  afterAll(async () => {
    await t.close();
  });

  const putCover = (body: Buffer | string, type = 'image/png', auth = owner.auth) =>
    request(t.url)
      .put(`/api/stations/${station.id}/cover`)
      .set(auth)
      .set('Content-Type', type)
      .send(body);

  it('keeps an uploaded cover as an 800×800 WebP served for good, with an ETag', async () => {
    const res = await putCover(await picture(1200, 900, 'jpeg'), 'image/jpeg').expect(200);
    const updated = res.body as Station;
    expect(updated.coverUrl).toMatch(/^\/images\/[0-9a-f-]{36}\.webp$/);
    const img = await request(t.url)
      .get(updated.coverUrl!)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(img.headers['content-type']).toBe('image/webp');
    expect(img.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(img.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const meta = await sharp(img.body as Buffer).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 800, 800]);
    await request(t.url).get(updated.coverUrl!).set('If-None-Match', img.headers.etag!).expect(304);
    // The public read shows it too.
    const read = await request(t.url).get(`/api/stations/${station.id}`).expect(200);
    expect(read.body.coverUrl).toBe(updated.coverUrl);

    // A new cover replaces the old one, which is gone.
    const again = (await putCover(await picture(400, 400)).expect(200)).body as Station;
    expect(again.coverUrl).not.toBe(updated.coverUrl);
    await request(t.url).get(updated.coverUrl!).expect(404);
    station = again;
  });

  it('refuses what is not a usable image, in plain words on the cover field', async () => {
    const small = await putCover(await picture(120, 90)).expect(400);
    expect(small.body).toMatchObject({
      error: 'ValidationError',
      fields: [
        { path: 'cover', message: 'This image is 120×90 pixels; use one at least 300×300.' },
      ],
    });
    const notImage = await putCover(Buffer.from('just some text, honest')).expect(400);
    expect(notImage.body.fields[0].message).toMatch(/^This file is not an image we can read/);
    const pdf = await putCover(Buffer.from('%PDF-1.4'), 'application/pdf').expect(415);
    expect(pdf.body).toMatchObject({
      error: 'UnsupportedMediaType',
      fields: [{ path: 'cover', message: 'Use a JPEG, PNG, WebP, GIF or AVIF image.' }],
    });
    const huge = await putCover(Buffer.alloc(8 * 1024 * 1024 + 10)).expect(413);
    expect(huge.body.error).toBe('PayloadTooLarge');
    const empty = await putCover(Buffer.alloc(0)).expect(400);
    expect(empty.body.fields[0].path).toBe('cover');
  });

  it('lets only the owner change the cover', async () => {
    await request(t.url)
      .put(`/api/stations/${station.id}/cover`)
      .set('Content-Type', 'image/png')
      .send(await picture(400, 400))
      .expect(401);
    await putCover(await picture(400, 400), 'image/png', other.auth).expect(403);
    await request(t.url).delete(`/api/stations/${station.id}/cover`).set(other.auth).expect(403);
  });

  it("draws the station's 1200×630 preview and names it in the page's head", async () => {
    const html = (await request(t.url).get(`/${owner.username}/night-owls-friends`).expect(200))
      .text;
    const match = html.match(/<meta property="og:image" content="([^"]+)" \/>/);
    expect(match).not.toBeNull();
    const url = new URL(match![1]!);
    expect(url.pathname).toBe(`/og/stations/${station.id}.png`);
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image" />');
    const png = await request(t.url)
      .get(url.pathname + url.search)
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const meta = await sharp(png.body as Buffer).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1200, 630]);
    // A rename changes the preview's address, so shared links show the new name.
    await request(t.url)
      .post('/api/stations/update')
      .set(owner.auth)
      .send({ stationId: station.id, name: 'Night Owls Radio' })
      .expect(200);
    const after = (await request(t.url).get(`/station/${station.id}`).expect(200)).text;
    expect(after).not.toContain(match![1]!);
    await request(t.url).get('/og/stations/3f1c2a4e-1111-4222-8333-444455556666.png').expect(404);
  });

  it('removes the cover', async () => {
    const res = await request(t.url)
      .delete(`/api/stations/${station.id}/cover`)
      .set(owner.auth)
      .expect(200);
    expect(res.body.coverUrl).toBeNull();
    await request(t.url).get(station.coverUrl!).expect(404);
  });

  it("keeps the broadcaster's avatar and shows it with their stations", async () => {
    const res = await request(t.url)
      .put('/api/me/avatar')
      .set(owner.auth)
      .set('Content-Type', 'image/png')
      .send(await picture(300, 200))
      .expect(200);
    const avatarUrl = res.body.avatarUrl as string;
    expect(avatarUrl).toMatch(/^\/images\/[0-9a-f-]{36}\.webp$/);
    const img = await request(t.url).get(avatarUrl).expect(200);
    expect(img.headers['content-type']).toBe('image/webp');
    const read = await request(t.url).get(`/api/stations/${station.id}`).expect(200);
    expect(read.body.broadcaster.avatarUrl).toBe(avatarUrl);
    const small = await request(t.url)
      .put('/api/me/avatar')
      .set(owner.auth)
      .set('Content-Type', 'image/png')
      .send(await picture(50, 50))
      .expect(400);
    expect(small.body.fields).toEqual([
      { path: 'avatar', message: 'This image is 50×50 pixels; use one at least 96×96.' },
    ]);
    const removed = await request(t.url).delete('/api/me/avatar').set(owner.auth).expect(200);
    expect(removed.body).toEqual({ avatarUrl: null });
    await request(t.url).get(avatarUrl).expect(404);
  });

  it('keeps the schedule the owner writes', async () => {
    const res = await request(t.url)
      .post('/api/stations/update')
      .set(owner.auth)
      .send({ stationId: station.id, schedule: 'Weeknights 22:00–02:00 CET\nSundays: jazz brunch' })
      .expect(200);
    expect(res.body.schedule).toBe('Weeknights 22:00–02:00 CET\nSundays: jazz brunch');
    const long = await request(t.url)
      .post('/api/stations/update')
      .set(owner.auth)
      .send({ stationId: station.id, schedule: 'x'.repeat(501) })
      .expect(400);
    expect(long.body.fields).toEqual([
      { path: 'schedule', message: 'Use at most 500 characters.' },
    ]);
  });

  it('wraps long names for the preview without losing the end silently', () => {
    expect(wrap('Night Owls and Friends Radio Show Deluxe', 15, 2)).toEqual([
      'Night Owls and',
      'Friends Radio…',
    ]);
    expect(wrap('Short', 15, 3)).toEqual(['Short']);
    expect(wrap('Supercalifragilisticexpialidocious', 15, 3)).toEqual([
      'Supercalifragil',
      'isticexpialidoc',
      'ious',
    ]);
  });
});
