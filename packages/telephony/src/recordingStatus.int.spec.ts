import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { ingest } from '@parley/ingest';
import { createKeyring, ParleyError } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelephonyAccountStore, type TelephonyAccountStore } from './accountStore.js';
import { handleRecordingStatusCallback, type RecordingStatusDeps } from './handleRecordingStatus.js';
import { telephonyMigrations } from './migrations.js';
import { callbackParams, computeRequestSignature } from './signature.js';

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let accounts: TelephonyAccountStore;
let deps: RecordingStatusDeps;
let projectId: string;
let tenantId: string;

const ACCOUNT = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'auth-token-of-the-account';
const BASE = 'https://parley.example.com/api/v1/voice/recording-status';

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations, telephonyMigrations]);
  store = createPostgresEventStore({ pool: db.pool });
  auth = createAuthStore(db.pool);
  accounts = createTelephonyAccountStore(db.pool, createKeyring(randomBytes(32)));
  const tenant = await auth.createTenant({ name: 'Acme' });
  const project = await auth.createProject({
    tenantId: tenant.id,
    slug: 'voice',
    settings: { recording: { retentionDays: 30 } },
  });
  projectId = project.id;
  tenantId = tenant.id;
  await accounts.add({ accountSid: ACCOUNT, projectId, authToken: TOKEN });
  deps = {
    account: (sid) => accounts.secrets(sid),
    ingest: (scope, items) =>
      ingest(
        {
          store,
          pool: db.pool,
          normaliseCallerNumber: (raw) => raw,
          recordingRetentionDays: async (id) =>
            (await auth.getProject(id))?.settings.recording?.retentionDays,
        },
        scope,
        items,
      ),
    now: () => new Date('2026-11-21T10:00:00.000Z'),
  };
});
afterAll(async () => {
  await store.close();
  await db.close();
});

describe('telephony account store', () => {
  it('adds, lists without secrets, gives secrets, refuses duplicates and unknown projects, removes', async () => {
    const other = await auth.createProject({ tenantId, slug: `other-${Date.now()}` });
    const added = await accounts.add({
      accountSid: 'AC_second',
      projectId: other.id,
      authToken: 'tok',
      recordingUsername: 'SK123',
      recordingPassword: 'secret',
    });
    expect(added).toMatchObject({
      accountSid: 'AC_second',
      projectId: other.id,
      tenantId,
      hasRecordingCredentials: true,
    });
    expect(JSON.stringify(await accounts.list())).not.toContain('tok');
    expect((await accounts.list({ projectId: other.id })).map((a) => a.accountSid)).toEqual(['AC_second']);
    expect((await accounts.secrets('AC_second'))?.recordingCredentials).toEqual({
      username: 'SK123',
      password: 'secret',
    });
    expect((await accounts.secrets(ACCOUNT))?.recordingCredentials).toEqual({
      username: ACCOUNT,
      password: TOKEN,
    });
    expect((await accounts.secretsOfProject(projectId)).map((a) => a.accountSid)).toEqual([ACCOUNT]);
    await expect(accounts.add({ accountSid: 'AC_second', projectId, authToken: 'x' })).rejects.toMatchObject({
      code: 'TELEPHONY_ACCOUNT_EXISTS',
      status: 409,
    });
    await expect(
      accounts.add({ accountSid: 'AC_third', projectId: 'proj_missing', authToken: 'x' }),
    ).rejects.toMatchObject({
      code: 'PROJECT_NOT_FOUND',
    });
    await expect(accounts.add({ accountSid: 'bad sid', projectId, authToken: 'x' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(
      accounts.add({ accountSid: 'AC_fourth', projectId, authToken: 'x', recordingUsername: 'only-user' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await accounts.remove('AC_second')).toBe(true);
    expect(await accounts.remove('AC_second')).toBe(false);
    expect(await accounts.secrets('AC_second')).toBeNull();
  });
});

const recordingSid = (n: number) => `RE${String(n).padStart(32, '0')}`;

function callback(fields: Record<string, string>, options: { url?: string; token?: string } = {}) {
  const params = callbackParams({ AccountSid: ACCOUNT, CallSid: 'CA42', ...fields });
  const url = options.url ?? `${BASE}?sessionId=ses_1`;
  return { url, params, signature: computeRequestSignature(options.token ?? TOKEN, url, params) };
}

async function recordingEvents(recordingId: string) {
  const events = [];
  for await (const e of store.readStream(`recording-${recordingId}`)) events.push(e);
  return events;
}

describe('handleRecordingStatusCallback', () => {
  it('appends started (with retention) then completed, idempotently across repeated callbacks', async () => {
    const sid = recordingSid(1);
    const common = { RecordingSid: sid, RecordingStartTime: 'Sat, 21 Nov 2026 09:59:00 +0000' };
    const inProgress = callback({ ...common, RecordingStatus: 'in-progress' });
    await handleRecordingStatusCallback(deps, inProgress);
    await handleRecordingStatusCallback(deps, inProgress);
    const completed = callback({
      ...common,
      RecordingStatus: 'completed',
      RecordingUrl: `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT}/Recordings/${sid}`,
      RecordingDuration: '12',
      RecordingChannels: '2',
    });
    const outcome = await handleRecordingStatusCallback(deps, completed);
    expect(outcome).toMatchObject({ recordingId: sid, projectId, status: 'completed' });
    expect(outcome.eventIds).toHaveLength(2);
    await handleRecordingStatusCallback(deps, completed);

    const events = await recordingEvents(sid);
    expect(events.map((e) => e.type)).toEqual(['RecordingStarted', 'RecordingCompleted']);
    expect(events[0]?.data).toMatchObject({
      recordingId: sid,
      sessionId: 'ses_1',
      projectId,
      tenantId,
      callId: 'CA42',
      startedAt: '2026-11-21T09:59:00.000Z',
      retentionExpiresAt: '2026-12-21T09:59:00.000Z',
    });
    expect(events[0]?.metadata).toMatchObject({ projectId, tenantId });
    expect(events[1]?.data.files).toHaveLength(3);
  });

  it('records absent and failed recordings as media_not_available for the whole recording', async () => {
    for (const [n, status] of [
      [2, 'absent'],
      [3, 'failed'],
    ] as const) {
      await handleRecordingStatusCallback(
        deps,
        callback({ RecordingSid: recordingSid(n), RecordingStatus: status }),
      );
      const events = await recordingEvents(recordingSid(n));
      expect(events.map((e) => e.type)).toEqual(['RecordingStarted', 'RecordingFailed']);
      expect(events[1]?.data).toMatchObject({ reason: 'media_not_available', callId: 'CA42' });
    }
  });

  it('refuses an unknown account, a wrong token, a tampered body or URL with one 401', async () => {
    const good = callback({ RecordingSid: recordingSid(4), RecordingStatus: 'in-progress' });
    const attempts = [
      callback({ RecordingSid: recordingSid(4), RecordingStatus: 'in-progress' }, { token: 'wrong' }),
      { ...good, url: `${BASE}?sessionId=ses_2` },
      { ...good, params: [...good.params, ['RecordingStatus', 'completed'] as const] },
      { ...good, signature: undefined },
      {
        ...good,
        params: good.params.map(([k, v]) =>
          k === 'AccountSid' ? ([k, 'AC_unknown'] as const) : ([k, v] as const),
        ),
      },
      { ...good, params: good.params.filter(([k]) => k !== 'AccountSid') },
    ];
    for (const attempt of attempts) {
      const err = await handleRecordingStatusCallback(deps, attempt).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ParleyError);
      expect(err).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
    expect(await recordingEvents(recordingSid(4))).toEqual([]);
  });

  it('refuses a signed but invalid callback (bad status, no session in the URL) with 400', async () => {
    await expect(
      handleRecordingStatusCallback(
        deps,
        callback({ RecordingSid: recordingSid(5), RecordingStatus: 'paused' }),
      ),
    ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    await expect(
      handleRecordingStatusCallback(
        deps,
        callback({ RecordingSid: recordingSid(5), RecordingStatus: 'in-progress' }, { url: BASE }),
      ),
    ).rejects.toMatchObject({ status: 400, details: { issues: [{ path: 'sessionId' }] } });
  });
});
