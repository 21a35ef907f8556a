import type { Disposition } from './storage/mediaStorage.js';

/**
 * The path of a proxied media URL (filesystem storage), relative to the API's public base URL:
 * `/api/projects/{projectId}/recordings/{recordingId}/media/content/<token>?objectIndex=<n>&disposition=<d>`.
 */
export function proxiedMediaPath(a: {
  projectId: string;
  recordingId: string;
  token: string;
  objectIndex: number;
  disposition: Disposition;
}): string {
  const segment = encodeURIComponent;
  return (
    `/api/projects/${segment(a.projectId)}/recordings/${segment(a.recordingId)}/media/content/` +
    `${segment(a.token)}?objectIndex=${a.objectIndex}&disposition=${a.disposition}`
  );
}
