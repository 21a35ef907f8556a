import { randomBytes } from 'node:crypto';
import { type Pool, withTransaction } from '@parley/platform';
import { ProjectNotFoundError } from '../connections/errors.js';
import type { CredentialKeyring } from '../crypto/keyring.js';
import { type CallbackUrlCheck, MAX_CALLBACK_URL_LENGTH } from './callbackUrl.js';
import {
  CallbackUrlRefusedError,
  type SecretRotation,
  SecretRotationError,
  type SubscriptionAuthMode,
  type SubscriptionInput,
  SubscriptionNotFoundError,
  type SubscriptionPatch,
  type SubscriptionStatus,
  secretRotationSchema,
  subscriptionInputSchema,
  subscriptionPatchSchema,
  type WebhookEventType,
} from './subscriptionSchema.js';

/**
 * The callback URL guard (callbackUrl.ts `checkCallbackUrl`, bound to the configured allowlist).
 * Injected so the store never resolves names itself and tests choose what is private.
 */
export type CheckSubscriptionUrl = (url: string) => Promise<CallbackUrlCheck>;

export interface WebhookSubscription {
  id: string;
  tenantId: string;
  projectId: string;
  displayName: string;
  callbackUrl: string;
  /** In WEBHOOK_EVENT_TYPES order, without repeats. */
  events: WebhookEventType[];
  status: SubscriptionStatus;
  authMode: SubscriptionAuthMode;
  createdAt: Date;
  updatedAt: Date;
}

/** What delivery needs: the HMAC secret, or the bearer token, in clear. Never for the API. */
export interface ResolvedSubscription extends WebhookSubscription {
  secret: string;
}

/** `secret` is present when the service generated it (HMAC): the only time it is ever returned. */
export interface SubscriptionWithSecret {
  subscription: WebhookSubscription;
  secret?: string;
}

export interface SubscriptionStore {
  /** ProjectNotFoundError, CallbackUrlRefusedError. */
  create(projectId: string, input: SubscriptionInput): Promise<SubscriptionWithSecret>;
  /** Oldest first, deleted ones left out; `total` counts the others. */
  list(
    projectId: string,
    page?: { limit: number; offset: number },
  ): Promise<{ subscriptions: WebhookSubscription[]; total: number }>;
  /** Null when absent or deleted. */
  get(projectId: string, id: string): Promise<WebhookSubscription | null>;
  /** SubscriptionNotFoundError, CallbackUrlRefusedError (a changed URL is checked again). */
  update(projectId: string, id: string, patch: SubscriptionPatch): Promise<WebhookSubscription>;
  /** Marks it deleted and erases its secret; false when absent or deleted already. */
  delete(projectId: string, id: string): Promise<boolean>;
  /** SubscriptionNotFoundError, SecretRotationError. Takes effect at once (no overlap of old and new). */
  rotateSecret(projectId: string, id: string, input?: SecretRotation): Promise<SubscriptionWithSecret>;
  /** Delivery: the subscription with its secret; null when absent or deleted. */
  resolve(id: string): Promise<ResolvedSubscription | null>;
  /** Delivery fan-out: the project's active subscriptions to the event type, oldest first. */
  activeFor(projectId: string, eventType: WebhookEventType): Promise<ResolvedSubscription[]>;
  /** Re-encrypts, in batches, every secret under another key than the keyring's current one. */
  reencryptSecrets(options?: { batchSize?: number }): Promise<{ reencrypted: number }>;
}

interface Row {
  id: string;
  tenant_id: string;
  project_id: string;
  display_name: string;
  callback_url: string;
  events: string[];
  status: SubscriptionStatus;
  auth_mode: SubscriptionAuthMode;
  secret_key_id: string;
  secret_ciphertext: Buffer;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, tenant_id, project_id, display_name, callback_url, events, status, auth_mode,
  secret_key_id, secret_ciphertext, created_at, updated_at`;

const toSubscription = (r: Row): WebhookSubscription => ({
  id: r.id,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  displayName: r.display_name,
  callbackUrl: r.callback_url,
  events: r.events as WebhookEventType[],
  status: r.status,
  authMode: r.auth_mode,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `sub_` and 16 base62 characters, like the other ids. */
export function newSubscriptionId(): string {
  let out = 'sub_';
  while (out.length < 20) {
    // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps every character equally likely.
    for (const byte of randomBytes(16)) if (byte < 248 && out.length < 20) out += BASE62[byte % 62];
  }
  return out;
}

/** 32 random bytes, base64url: the per-subscription HMAC secret. */
export const newSubscriptionSecret = (): string => randomBytes(32).toString('base64url');

/** Webhook subscriptions with their secrets encrypted by `keyring` (associated data: the subscription id). */
export function createSubscriptionStore(
  pool: Pool,
  keyring: CredentialKeyring,
  options: { checkUrl: CheckSubscriptionUrl },
): SubscriptionStore {
  const open = (r: Row): ResolvedSubscription => ({
    ...toSubscription(r),
    secret: keyring.decrypt(r.secret_key_id, r.secret_ciphertext, r.id),
  });
  const checked = async (url: string): Promise<string> => {
    const result = await options.checkUrl(url);
    if (!result.ok) throw new CallbackUrlRefusedError(result.reason, result.message);
    // Parsing percent-encodes (a space becomes %20): what is stored must still fit the column.
    if (result.url.href.length > MAX_CALLBACK_URL_LENGTH)
      throw new CallbackUrlRefusedError(
        'url_too_long',
        `callback URL is longer than ${MAX_CALLBACK_URL_LENGTH} characters once encoded`,
      );
    return result.url.href;
  };
  const setSecret = async (projectId: string, id: string, secret: string): Promise<Row | undefined> => {
    const { keyId, ciphertext } = keyring.encrypt(secret, id);
    const { rows } = await pool.query<Row>(
      `update http_async_subscriptions set secret_key_id = $3, secret_ciphertext = $4, updated_at = now()
       where project_id = $1 and id = $2 and status <> 'deleted'
       returning ${COLUMNS}`,
      [projectId, id, keyId, ciphertext],
    );
    return rows[0];
  };

  const store: SubscriptionStore = {
    async create(projectId, input) {
      const s = subscriptionInputSchema.parse(input);
      const url = await checked(s.callbackUrl);
      const id = newSubscriptionId();
      const generated = s.authMode === 'hmac' ? newSubscriptionSecret() : undefined;
      const { keyId, ciphertext } = keyring.encrypt(generated ?? s.bearerToken!, id);
      const { rows } = await pool.query<Row>(
        `insert into http_async_subscriptions (id, tenant_id, project_id, display_name, callback_url, events,
           status, auth_mode, secret_key_id, secret_ciphertext)
         select $1, p.tenant_id, p.id, $3, $4, $5::text[], $6, $7, $8, $9 from projects p where p.id = $2
         returning ${COLUMNS}`,
        [id, projectId, s.displayName, url, s.events, s.status, s.authMode, keyId, ciphertext],
      );
      if (rows[0] === undefined) throw new ProjectNotFoundError();
      return {
        subscription: toSubscription(rows[0]),
        ...(generated === undefined ? {} : { secret: generated }),
      };
    },

    async list(projectId, page = { limit: 50, offset: 0 }) {
      const { rows } = await pool.query<Row & { total: string }>(
        `select ${COLUMNS}, count(*) over () as total from http_async_subscriptions
         where project_id = $1 and status <> 'deleted'
         order by created_at, id limit $2 offset $3`,
        [projectId, page.limit, page.offset],
      );
      let total = rows[0] === undefined ? 0 : Number(rows[0].total);
      // Past the last page the window count is absent: count separately.
      if (rows.length === 0 && page.offset > 0) {
        const counted = await pool.query<{ n: string }>(
          `select count(*) as n from http_async_subscriptions where project_id = $1 and status <> 'deleted'`,
          [projectId],
        );
        total = Number(counted.rows[0]?.n ?? 0);
      }
      return { subscriptions: rows.map(toSubscription), total };
    },

    async get(projectId, id) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from http_async_subscriptions
         where project_id = $1 and id = $2 and status <> 'deleted'`,
        [projectId, id],
      );
      return rows[0] === undefined ? null : toSubscription(rows[0]);
    },

    async update(projectId, id, patch) {
      const p = subscriptionPatchSchema.parse(patch);
      // Not found wins over a refused URL: the caller learns the id is wrong first.
      if ((await store.get(projectId, id)) === null) throw new SubscriptionNotFoundError(id);
      const url = p.callbackUrl === undefined ? null : await checked(p.callbackUrl);
      const { rows } = await pool.query<Row>(
        `update http_async_subscriptions set
           display_name = coalesce($3, display_name),
           callback_url = coalesce($4, callback_url),
           events = coalesce($5::text[], events),
           status = coalesce($6, status),
           updated_at = now()
         where project_id = $1 and id = $2 and status <> 'deleted'
         returning ${COLUMNS}`,
        [projectId, id, p.displayName ?? null, url, p.events ?? null, p.status ?? null],
      );
      if (rows[0] === undefined) throw new SubscriptionNotFoundError(id);
      return toSubscription(rows[0]);
    },

    async delete(projectId, id) {
      const { rowCount } = await pool.query(
        `update http_async_subscriptions set status = 'deleted', deleted_at = now(), updated_at = now(),
           secret_key_id = null, secret_ciphertext = null
         where project_id = $1 and id = $2 and status <> 'deleted'`,
        [projectId, id],
      );
      return (rowCount ?? 0) > 0;
    },

    async rotateSecret(projectId, id, input = {}) {
      const r = secretRotationSchema.parse(input);
      const current = await store.get(projectId, id);
      if (current === null) throw new SubscriptionNotFoundError(id);
      if (current.authMode === 'hmac' && r.bearerToken !== undefined)
        throw new SecretRotationError(
          'an HMAC subscription takes no bearerToken: its new secret is generated',
        );
      if (current.authMode === 'bearer' && r.bearerToken === undefined)
        throw new SecretRotationError('a bearer subscription needs its new token as bearerToken');
      const generated = current.authMode === 'hmac' ? newSubscriptionSecret() : undefined;
      const row = await setSecret(projectId, id, generated ?? r.bearerToken!);
      if (row === undefined) throw new SubscriptionNotFoundError(id);
      return { subscription: toSubscription(row), ...(generated === undefined ? {} : { secret: generated }) };
    },

    async resolve(id) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from http_async_subscriptions where id = $1 and status <> 'deleted'`,
        [id],
      );
      return rows[0] === undefined ? null : open(rows[0]);
    },

    async activeFor(projectId, eventType) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from http_async_subscriptions
         where project_id = $1 and status = 'active' and $2 = any(events)
         order by created_at, id`,
        [projectId, eventType],
      );
      return rows.map(open);
    },

    async reencryptSecrets(options = {}) {
      const batchSize = options.batchSize ?? 100;
      let reencrypted = 0;
      for (;;) {
        const done = await withTransaction(pool, async (client) => {
          const { rows } = await client.query<Row>(
            `select ${COLUMNS} from http_async_subscriptions
             where secret_key_id is not null and secret_key_id <> $1
             order by id limit $2 for update skip locked`,
            [keyring.currentKeyId, batchSize],
          );
          for (const row of rows) {
            const { keyId, ciphertext } = keyring.encrypt(open(row).secret, row.id);
            await client.query(
              'update http_async_subscriptions set secret_key_id = $2, secret_ciphertext = $3 where id = $1',
              [row.id, keyId, ciphertext],
            );
          }
          reencrypted += rows.length;
          return rows.length < batchSize;
        });
        if (done) return { reencrypted };
      }
    },
  };
  return store;
}
