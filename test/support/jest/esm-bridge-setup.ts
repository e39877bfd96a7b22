// The ESM namespaces `esm-bridge.cjs` hands to CommonJS packages in this test file's module registry.
import * as common from '@nestjs/common';
import * as core from '@nestjs/core';

(globalThis as { __rbEsmBridge?: Record<string, unknown> }).__rbEsmBridge = {
  '@nestjs/common': common,
  '@nestjs/core': core,
};
