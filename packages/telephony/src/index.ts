export {
  type AddTelephonyAccountInput,
  createTelephonyAccountStore,
  type TelephonyAccount,
  type TelephonyAccountSecrets,
  type TelephonyAccountStore,
} from './accountStore.js';
export {
  type CallbackIngestResult,
  handleRecordingStatusCallback,
  type RecordingStatusDeps,
  type RecordingStatusOutcome,
  type RecordingStatusRequest,
  signatureInvalid,
} from './handleRecordingStatus.js';
export { telephonyMigrations } from './migrations.js';
export {
  callbackFiles,
  paramsObject,
  RECORDING_CALLBACK_STATUSES,
  type RecordingCallbackStatus,
  type RecordingIngestItem,
  type RecordingStatusCallback,
  recordingCallbackItems,
  recordingStatusCallbackSchema,
  TELEPHONY_ITEM_PREFIX,
} from './recordingCallback.js';
export {
  type CallbackParams,
  callbackParams,
  computeRequestSignature,
  verifyRequestSignature,
} from './signature.js';
