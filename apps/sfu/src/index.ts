export * from './media-engine.js';
export { createWeriftEngine, type WeriftEngineInternals } from './werift/werift-engine.js';
export { resolveShardWorker } from './werift/shard-handles.js';
export { MAX_SDP_BYTES, OPUS_FMTP, validateOffer, mungeAnswer } from './sdp.js';
export { ClusterEngine, type ClusterEngineOptions } from './remote/cluster-engine.js';
export { mediaKeys, redisKeys, type MediaKeys, type RedisKeys } from './protocol/keys.js';
export * from './protocol/schemas.js';
export { SfuNodeClient, NodeUnreachableError, NodeCallError } from './protocol/client.js';
export { fastPaths, type FastPaths } from './boundary/fast-paths.js';
export { parseRedisJson } from './protocol/redis-json.js';
export {
  chooseEngine,
  createMediaEngine,
  ENGINE_NAMES,
  type EngineChoice,
  type EngineName,
} from './engine-choice.js';
export { findMediasoupWorker, WORKER_BUILD_HINT } from './mediasoup/worker-bin.js';
