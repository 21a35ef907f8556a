const ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const EXTENSION = /^[A-Za-z0-9]{1,10}$/;

/**
 * The storage key of one file of a recording:
 * `recordings/<projectId>/<recordingId>/<objectIndex>[.<extension>]`. Deterministic, so a fetch job
 * that runs twice writes the same object. Throws a TypeError on ids that are not safe key segments.
 */
export function recordingMediaKey(ids: {
  projectId: string;
  recordingId: string;
  objectIndex: number;
  extension?: string;
}): string {
  const { projectId, recordingId, objectIndex, extension } = ids;
  if (!ID.test(projectId)) throw new TypeError('invalid projectId for a media key');
  if (!ID.test(recordingId)) throw new TypeError('invalid recordingId for a media key');
  if (!Number.isSafeInteger(objectIndex) || objectIndex < 0) {
    throw new TypeError('invalid objectIndex for a media key');
  }
  const suffix = extension === undefined ? '' : `.${checkedExtension(extension)}`;
  return `recordings/${projectId}/${recordingId}/${objectIndex}${suffix}`;
}

function checkedExtension(extension: string): string {
  const bare = extension.startsWith('.') ? extension.slice(1) : extension;
  if (!EXTENSION.test(bare)) throw new TypeError('invalid extension for a media key');
  return bare.toLowerCase();
}
