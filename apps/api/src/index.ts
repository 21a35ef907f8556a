export { type AppOptions, buildApp } from './app.js';
export type { ReadinessChecks } from './routes/health.js';
