import { jest } from '@jest/globals';

/**
 * e2e tests and hooks without a timeout of their own get 120 s, not Jest's 30 s: they boot processes
 * and browsers, and `npm test` runs two e2e files at once on a loaded 2-core machine. Every wait in
 * them is on a condition, so a generous bound costs nothing when it passes.
 */
jest.setTimeout(120_000);
