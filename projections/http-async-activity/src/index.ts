export {
  type DeliveryFilter,
  getDelivery,
  type HttpAsyncDelivery,
  type HttpAsyncDeliveryAttempt,
  httpAsyncActivityFreshness,
  listDeliveries,
  readDeliveryFromLog,
} from './deliveries.js';
export { DELIVERY_EVENT_TYPES } from './deliveryEvent.js';
export {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  deliveryFromEvents,
  HTTP_ASYNC_ACTIVITY_PROJECTION,
  type HttpAsyncDeliveryAttemptRow,
  type HttpAsyncDeliveryRow,
  httpAsyncActivityProjection,
  nextFirstAttempt,
} from './httpAsyncActivityProjection.js';
