import { type AuthStore, createAuthStore } from '@parley/auth';
import { keyringFromConfig, ParleyError } from '@parley/platform';
import { telephonyAccountsOf } from '@parley/process-services';
import type { TelephonyAccountStore } from '@parley/telephony';
import { openSystem, UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';
import { resolveProject } from './projects.js';
import { formatTime, printJson } from './tenants.js';

async function withAccounts<T>(
  ctx: CliContext,
  fn: (accounts: TelephonyAccountStore, auth: AuthStore) => Promise<T>,
): Promise<T> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 2 });
  try {
    return await fn(telephonyAccountsOf(system), createAuthStore(system.pool));
  } catch (err) {
    if (err instanceof ParleyError && err.status < 500) throw new UsageError(err.message);
    throw err;
  } finally {
    await system.close();
  }
}

export interface TelephonyAccountsAddOptions {
  accountSid: string;
  project: string;
  /** Else TELEPHONY_AUTH_TOKEN (keeps the token out of the shell history and `ps`). */
  authToken?: string;
  recordingUsername?: string;
  /** Else TELEPHONY_RECORDING_PASSWORD. */
  recordingPassword?: string;
  json?: boolean;
}

export async function telephonyAccountsAddCommand(
  ctx: CliContext,
  options: TelephonyAccountsAddOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (keyringFromConfig(ctx.config) === null) {
    throw new UsageError(
      'CHANNEL_CREDENTIALS_KEY is not set: telephony auth tokens are stored encrypted with it (docs/channels.md)',
    );
  }
  const authToken = options.authToken ?? env.TELEPHONY_AUTH_TOKEN;
  if (!authToken) throw new UsageError('give the auth token: TELEPHONY_AUTH_TOKEN=… or --auth-token');
  const recordingPassword = options.recordingPassword ?? env.TELEPHONY_RECORDING_PASSWORD;
  if ((options.recordingUsername === undefined) !== (recordingPassword === undefined)) {
    throw new UsageError(
      'give both --recording-username and a recording password (TELEPHONY_RECORDING_PASSWORD or --recording-password), or neither',
    );
  }
  const account = await withAccounts(ctx, async (accounts, auth) => {
    const project = await resolveProject(auth, options.project);
    return accounts.add({
      accountSid: options.accountSid,
      projectId: project.id,
      authToken,
      ...(options.recordingUsername === undefined || recordingPassword === undefined
        ? {}
        : { recordingUsername: options.recordingUsername, recordingPassword }),
    });
  });
  if (options.json) printJson(ctx, account);
  else ctx.out.write(`added telephony account ${account.accountSid} for project ${account.projectId}\n`);
}

export async function telephonyAccountsListCommand(
  ctx: CliContext,
  options: { project?: string; json?: boolean },
): Promise<void> {
  const list = await withAccounts(ctx, async (accounts, auth) =>
    accounts.list(
      options.project === undefined ? {} : { projectId: (await resolveProject(auth, options.project)).id },
    ),
  );
  if (options.json) {
    printJson(ctx, list);
    return;
  }
  ctx.out.write(
    formatTable(
      list.map((a) => ({
        'account sid': a.accountSid,
        project: a.projectId,
        tenant: a.tenantId,
        'recording credentials': a.hasRecordingCredentials ? 'own' : 'account sid + token',
        created: formatTime(a.createdAt),
      })),
    ),
  );
}

export async function telephonyAccountsRemoveCommand(ctx: CliContext, accountSid: string): Promise<void> {
  const removed = await withAccounts(ctx, (accounts) => accounts.remove(accountSid));
  if (!removed) throw new UsageError(`no telephony account ${accountSid}`);
  ctx.out.write(`removed telephony account ${accountSid}\n`);
}
