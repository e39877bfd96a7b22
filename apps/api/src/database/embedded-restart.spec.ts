import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { signUp, spawnApiProcess } from '../../testing/test-app.js';

describe('embedded defaults (no DATABASE_URL, no REDIS_URL)', () => {
  it('serves /health and discover, and keeps data across a restart', async () => {
    const env = {
      DATABASE_URL: '',
      REDIS_URL: '',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'rb-embedded-')),
    };
    const first = await spawnApiProcess(env);
    let stationId: string;
    try {
      const health = await fetch(`${first.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      const owner = await signUp(first.url);
      const res = await fetch(`${first.url}/api/stations`, {
        method: 'POST',
        headers: { ...owner.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Survivor' }),
      });
      expect(res.status).toBe(201);
      stationId = ((await res.json()) as { station: { id: string } }).station.id;
    } finally {
      await first.stop();
    }

    const second = await spawnApiProcess(env);
    try {
      const discover = await fetch(`${second.url}/api/stations/discover`);
      expect(discover.status).toBe(200);
      const body = (await discover.json()) as { stations: { id: string; name: string }[] };
      expect(body.stations).toEqual([expect.objectContaining({ id: stationId, name: 'Survivor' })]);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
