export * from './media-engine.js';
export {
  createWeriftEngine,
  resolveShardWorker,
  type WeriftEngineInternals,
} from './werift-engine.js';
export { MAX_SDP_BYTES, OPUS_FMTP, validateOffer, mungeAnswer } from './sdp.js';
export * from './node/protocol.js';
export { SfuNodeClient, NodeUnreachableError, NodeCallError } from './node/client.js';
