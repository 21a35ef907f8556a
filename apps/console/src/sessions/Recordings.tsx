import { useEffect, useState } from 'preact/hooks';
import { type Api, ApiError } from '../api.js';
import { formatUtc } from '../charts/format.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { useApiData } from '../components/useApiData.js';
import { DASH, formatClock, formatMs } from './format.js';
import type { Recording, RecordingFile, RecordingsAnswer } from './types.js';
import { Badge } from './ui.js';

/** What each unavailableReason means to an operator (docs/recordings.md). */
export const REASONS: Record<string, string> = {
  call_in_progress: 'The call has not ended yet; files appear once it has.',
  media_in_progress: 'The call ended; the media is still being fetched and stored.',
  url_signing_failed: 'A playable URL could not be issued right now; refresh to try again.',
  recording_disabled: 'Recording was switched off for this session or project.',
  media_not_available: 'The recording server had no media for this call.',
  auth_failed: 'The recording server refused the credentials when fetching this file.',
  storage_write_failed: 'Media storage refused the file after retries.',
  media_object_missing: 'The stored file is missing from media storage.',
  retention_expired: 'The retention period passed; the media was removed.',
  deleted: 'The recording was deleted.',
};

const ROLE_ORDER = ['caller', 'agent', 'mixed'];
const MAX_AUTO_RETRIES = 6;

function title(s: string | null): string {
  if (!s) return 'Audio';
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The session's call recordings with one audio player per file (caller, agent, mixed). The issued
 * URLs are bearer secrets: they go only into the <audio> elements' src, never into the address bar,
 * the console log or an error message; they expire, so their expiry is shown and "Refresh URLs"
 * fetches new ones.
 */
export function Recordings({
  api,
  projectId,
  sessionId,
}: {
  api: Api;
  projectId: string;
  sessionId: string;
}) {
  const result = useApiData(`${projectId}|${sessionId}`, async (signal) => {
    const answer = await api.get<RecordingsAnswer>(
      `/api/public/recordings/projects/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(sessionId)}/recordings`,
      { disposition: 'inline' },
      { signal },
    );
    return { answer: answer.data, fetchedAt: Date.now() };
  });
  const [now, setNow] = useState(() => Date.now());

  const data = result.data?.answer;
  // While the answer is retryable (a call or its media still in progress), check again with a pause.
  const [retries, setRetries] = useState(0);
  useEffect(() => setRetries(0), [projectId, sessionId]);
  useEffect(() => {
    if (!data?.retryable || result.loading || retries >= MAX_AUTO_RETRIES) return;
    const t = setTimeout(() => {
      setRetries((n) => n + 1);
      result.reload();
    }, 10_000);
    return () => clearTimeout(t);
  }, [data, result.loading, retries]);
  const lifetimes = (data?.recordings ?? [])
    .flatMap((r) => r.files.map((f) => f.expiresIn))
    .filter((x): x is number => typeof x === 'number');
  const expiresAt =
    result.data && lifetimes.length > 0 ? result.data.fetchedAt + Math.min(...lifetimes) * 1000 : null;
  const expired = expiresAt !== null && now >= expiresAt;
  // The countdown ticks only while there are URLs that have not expired yet.
  const ticking = expiresAt !== null && !expired;
  useEffect(() => {
    if (!ticking) return;
    const t = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(t);
  }, [ticking]);

  return (
    <section class="panel recordings" aria-labelledby="rec-title">
      <div class="panel-head">
        <h2 id="rec-title">Recordings</h2>
        {data ? <Badge value={data.status} /> : null}
        {result.error instanceof ApiError && result.error.needsApiKey ? null : (
          <button type="button" class="secondary small" onClick={result.reload} disabled={result.loading}>
            {result.loading ? 'Loading…' : 'Refresh URLs'}
          </button>
        )}
      </div>
      {expiresAt !== null ? (
        <p class={expired ? 'notice' : 'help'} role={expired ? 'alert' : undefined}>
          {expired
            ? 'The playback URLs have expired: refresh them to play.'
            : `URLs expire at ${formatClock(new Date(expiresAt).toISOString())} UTC (in ${formatMs(expiresAt - now)}).`}
        </p>
      ) : null}
      {result.error ? <RecordingsError error={result.error} /> : null}
      {data && data.recordings.length === 0 ? (
        <p class="muted">
          No recording.{' '}
          {data.unavailableReason ? (REASONS[data.unavailableReason] ?? data.unavailableReason) : ''}
          {data.retryable ? ' Check again later.' : ''}
        </p>
      ) : null}
      {data?.retryable ? (
        <p class="help" aria-live="polite">
          {retries < MAX_AUTO_RETRIES
            ? 'Not final yet: checking again every 10 s.'
            : 'Not final yet: refresh to check again.'}
        </p>
      ) : null}
      {data?.recordings.map((r, i) => (
        <RecordingCard key={r.recordingId} recording={r} index={i + 1} count={data.recordings.length} />
      ))}
    </section>
  );
}

function RecordingsError({ error }: { error: unknown }) {
  if (error instanceof ApiError) {
    if (error.needsApiKey) {
      return <p class="muted">Recordings need a platform API key with the recordings.read scope.</p>;
    }
    if (error.code === 'RECORDING_FEATURE_DISABLED')
      return <p class="muted">Call recording is not enabled for this tenant.</p>;
    if (error.code === 'SESSION_NOT_FOUND')
      return <p class="muted">No recording is known for this session.</p>;
    if (error.code === 'PERMISSION_REQUIRED')
      return <p class="muted">This key lacks the recordings.read scope.</p>;
  }
  return <ErrorBox error={error} what="Loading recordings" />;
}

function RecordingCard({
  recording: r,
  index,
  count,
}: {
  recording: Recording;
  index: number;
  count: number;
}) {
  const files = [...r.files].sort(
    (a, b) => rank(a.channel) - rank(b.channel) || a.objectIndex - b.objectIndex,
  );
  const suffix = count > 1 ? ` (recording ${index})` : '';
  return (
    <article class="recording" aria-label={`Recording ${index}`}>
      <div class="recording-head">
        <span class="mono" title={r.recordingId}>
          {count > 1 ? `#${index} ` : ''}
          {r.recordingId}
        </span>
        <Badge value={r.availability} />
        {r.immutable ? <span class="tag">legal hold</span> : null}
      </div>
      <div class="recording-meta muted">
        {r.durationSeconds !== null ? `${formatMs(r.durationSeconds * 1000)} · ` : ''}
        started {formatUtc(r.createdAt, true, DASH)}
        {r.retentionExpiresAt
          ? ` · kept until ${formatUtc(r.retentionExpiresAt, true, DASH).slice(0, 10)}`
          : ''}
      </div>
      {r.unavailableReason ? (
        <p class="muted">{REASONS[r.unavailableReason] ?? r.unavailableReason}</p>
      ) : null}
      {files.length === 0 && !r.unavailableReason ? <p class="muted">No file listed yet.</p> : null}
      {files.map((f) => (
        <FileRow
          key={`${f.recordingId}/${f.objectIndex}`}
          file={f}
          suffix={suffix}
          explained={f.unavailableReason !== null && f.unavailableReason === r.unavailableReason}
        />
      ))}
    </article>
  );
}

function rank(channel: string | null): number {
  const i = ROLE_ORDER.indexOf(channel ?? '');
  return i === -1 ? ROLE_ORDER.length : i;
}

function FileRow({
  file: f,
  suffix,
  explained,
}: {
  file: RecordingFile;
  suffix: string;
  explained: boolean;
}) {
  const labelId = `audio-${f.recordingId}-${f.objectIndex}`;
  const label = `${title(f.channel)} audio${suffix}`;
  return (
    <figure class="audio-file">
      <figcaption>
        <span id={labelId} class="audio-label">
          {label}
        </span>
        <span class="muted">
          {f.fileName ?? `file ${f.objectIndex}`}
          {f.bytes ? ` · ${Math.round(f.bytes / 1024)} KiB` : ''}
        </span>
      </figcaption>
      {f.url ? (
        // biome-ignore lint/a11y/useMediaCaption: call audio has no caption track; the transcript is beside it
        <audio controls preload="metadata" src={f.url} aria-labelledby={labelId} />
      ) : (
        <p class="muted file-unavailable">
          <Badge value={f.availability} />{' '}
          {explained
            ? null
            : f.unavailableReason
              ? (REASONS[f.unavailableReason] ?? f.unavailableReason)
              : 'No URL issued.'}
        </p>
      )}
    </figure>
  );
}
