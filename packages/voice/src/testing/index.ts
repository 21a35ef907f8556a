export {
  type RecordedRoomServiceCall,
  type RoomServiceStandIn,
  startRoomServiceStandIn,
} from './roomServiceStandIn.js';
