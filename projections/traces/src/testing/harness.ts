import { upcast } from '@parley/events';
import type { MigrationSet } from '@parley/platform';
import { createProjectionHarness, type ProjectionHarness } from '@parley/projection-runner/testing';
import { tracesProjection } from '../tracesProjection.js';

/** A fresh database with the log, the registry and a running traces projection. */
export type Harness = ProjectionHarness;

export const createHarness = (
  options: { batchSize?: number; migrations?: readonly MigrationSet[] } = {},
): Promise<Harness> => createProjectionHarness({ projection: tracesProjection, upcast, ...options });
