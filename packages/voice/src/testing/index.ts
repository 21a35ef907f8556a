// Test helpers of @parley/voice (entry point `@parley/voice/testing`): never imported by production code.
export {
  type RealtimeStandIn,
  type RealtimeStandInOptions,
  type StandInResponse,
  type StandInTiming,
  startRealtimeStandIn,
} from './realtimeStandIn.js';
export {
  type RecordedRoomServiceCall,
  type RoomServiceStandIn,
  startRoomServiceStandIn,
} from './roomServiceStandIn.js';
export { recordedReply } from './standInAudio.js';
