import { upcast } from '@parley/events';
import { createProjectionHarness, type ProjectionHarness } from '@parley/projection-runner/testing';
import { recordingsProjection } from '../recordingsProjection.js';

/** A fresh database with the log, the registry and a running recordings projection. */
export type Harness = ProjectionHarness;

export const createHarness = (options: { batchSize?: number } = {}): Promise<Harness> =>
  createProjectionHarness({ projection: recordingsProjection, upcast, ...options });
