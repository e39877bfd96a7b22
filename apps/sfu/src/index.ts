export * from './media-engine.js';
export { createWeriftEngine, type WeriftEngineInternals } from './werift/werift-engine.js';
export { resolveShardWorker } from './werift/shard-handles.js';
export { MAX_SDP_BYTES, OPUS_FMTP, validateOffer, mungeAnswer } from './sdp.js';
export { ClusterEngine, type ClusterEngineOptions } from './cluster/cluster-engine.js';
export { mediaKeys, type MediaKeys } from './protocol/keys.js';
export * from './protocol/schemas.js';
export { SfuNodeClient, NodeUnreachableError, NodeCallError } from './protocol/client.js';
export { fastPaths, type FastPaths } from './boundary/fast-paths.js';
