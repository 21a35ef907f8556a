export { createWorker, type Worker, type WorkerOptions } from './worker.js';
