/** Jest's own runtime, with V8's code cache shared across a worker's test files (code-cache.cjs). */
'use strict';
require('./code-cache.cjs');
module.exports = require('jest-runtime');
