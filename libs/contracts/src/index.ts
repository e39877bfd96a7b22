export * from './constants.js';
export * from './errors.js';
export * from './station.js';
export * from './auth.js';
export * from './domains.js';
export * from './media.js';
export * from './events.js';
