import type { GetProjectionRebuildResponse, ListProjectionsResponse } from '../apiTypes.generated.js';

/** GET /api/v1/projections and the rebuild APIs: generated from the API's /openapi.json. */
export type ProjectionList = ListProjectionsResponse;
export type Projection = ProjectionList['projections'][number];
export type ProjectionState = Projection['state'];
export type Generation = Projection['generations'][number];
export type Rebuild = GetProjectionRebuildResponse['rebuild'];
export type RebuildState = Rebuild['state'];
