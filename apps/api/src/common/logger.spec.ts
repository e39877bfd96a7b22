import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { REDACT } from './logger.js';

describe('structured logs', () => {
  it('redacts credentials, cookies, passwords and tokens', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const logger = pino({ redact: { paths: REDACT, censor: '[redacted]' } }, sink);
    logger.info({
      req: {
        headers: {
          authorization: 'Bearer secret-token',
          cookie: 'rb_session=abc',
          'user-agent': 'x',
        },
      },
      res: { headers: { 'set-cookie': 'rb_session=abc' } },
      body: { password: 'hunter2', token: 'tkn' },
    });
    const line = lines.join('');
    expect(line).not.toMatch(/secret-token|rb_session=abc|hunter2|"tkn"/);
    expect(JSON.parse(line).req.headers).toEqual({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'user-agent': 'x',
    });
  });
});
