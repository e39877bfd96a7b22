/**
 * V8's code cache for the modules Jest compiles, kept across the test files of one Jest worker.
 *
 * Jest gives every test file a module registry of its own, so each file compiles its whole module
 * graph again from source (vm.Script for CommonJS, vm.SourceTextModule for ES modules): NestJS,
 * TypeORM, Express, werift and the app for a file that boots the API. The code is the same from file
 * to file, so the first file's compiled code (V8's code cache: for a CommonJS module taken after that
 * file ran it, so with the functions it compiled lazily; for an ES module before, as V8 allows)
 * serves the next ones: about 0.3 s of CPU less per API spec (docs/testing.md, fourteenth session).
 * Only the compiling is shared: every file still evaluates every module in its own context, so no
 * state crosses files. V8 checks each cache against the source it was made from and compiles afresh when it
 * does not fit (`cachedDataRejected`). Loaded by test/support/jest/runtime.cjs (jest.config.js's
 * `runtime`); RB_JEST_CODE_CACHE=0 turns it off.
 */
'use strict';
const vm = require('node:vm');

const PATCHED = Symbol.for('rb.jest.codeCache');
if (process.env.RB_JEST_CODE_CACHE !== '0' && !vm[PATCHED]) {
  vm[PATCHED] = true;
  /** module file -> its source, and its code cache or the compiled module to take one from */
  const cache = new Map();

  /** The options with the code cache for `key`'s `source`, if there is one. */
  const withCache = (key, source, options) => {
    const entry = key ? cache.get(key) : undefined;
    if (!entry || entry.source !== source) return { entry: undefined, options };
    if (!entry.data && entry.compiled) {
      try {
        entry.data = entry.compiled.createCachedData();
      } catch {
        // a module that failed to link: no cache
      }
      entry.compiled = undefined;
    }
    return { entry, options: entry.data ? { ...options, cachedData: entry.data } : options };
  };
  /** Remembers `compiled` as the source of `key`'s code cache, unless a fitting cache served it. */
  const remember = (key, source, entry, compiled) => {
    if (!key) return;
    if (!entry) cache.set(key, { source, data: undefined, compiled });
    else if (compiled.cachedDataRejected !== false) {
      entry.data = undefined;
      entry.compiled = compiled;
    }
  };

  const Script = vm.Script;
  vm.Script = class CachedScript extends Script {
    constructor(code, options = {}) {
      const key = options.cachedData ? undefined : options.filename;
      const found = withCache(key, code, options);
      super(code, found.options);
      remember(key, code, found.entry, this);
    }
  };
  const SourceTextModule = vm.SourceTextModule;
  if (SourceTextModule)
    vm.SourceTextModule = class CachedSourceTextModule extends SourceTextModule {
      constructor(code, options = {}) {
        const key = options.cachedData ? undefined : options.identifier;
        const found = withCache(key, code, options);
        super(code, found.options);
        // a module's cache is taken before it is evaluated (V8 refuses one after): its top-level code
        if (key && !found.entry?.data)
          try {
            cache.set(key, { source: code, data: this.createCachedData(), compiled: undefined });
          } catch {
            // no cache for this one
          }
      }
    };
}
