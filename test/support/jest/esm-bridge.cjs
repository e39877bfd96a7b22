/**
 * Jest 29 cannot `require()` an ES module, and NestJS 12 is ESM-only, so CommonJS packages built
 * against it (@nestjs/throttler) cannot load their `require('@nestjs/common')` under Jest (Node
 * itself can). This transformer points those requires at the ESM namespaces `esm-bridge-setup.ts`
 * imported for the test file, so both sides share one copy of NestJS, as they do in production.
 */
const { createHash } = require('node:crypto');

const BRIDGED = ['@nestjs/common', '@nestjs/core'];
const PATTERN = new RegExp(`require\\((["'])(${BRIDGED.join('|')})\\1\\)`, 'g');

module.exports = {
  process(source) {
    return {
      code: source.replace(
        PATTERN,
        (_m, _q, name) =>
          `(globalThis.__rbEsmBridge?.[${JSON.stringify(name)}] ?? (() => { throw new Error(${JSON.stringify(
            `${name} is not bridged: add test/support/jest/esm-bridge-setup.ts to setupFilesAfterEnv`,
          )}); })())`,
      ),
    };
  },
  getCacheKey(source, path) {
    return createHash('sha256').update('rb-esm-bridge-1').update(path).update(source).digest('hex');
  },
};
