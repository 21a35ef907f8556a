export { type RunningS3rver, startS3rver } from './startS3rver.js';
