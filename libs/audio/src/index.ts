export * from './ogg.js';
export * from './ogg-stream.js';
export * from './ogg-opus-writer.js';
export * from './opus.js';
export * from './mp3.js';
