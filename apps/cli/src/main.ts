import { SCOPE_NAMES } from '@parley/auth/scopes';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CHAT_COMMANDS } from './chatHelp.js';
import type { AgentFlags } from './commands/agents.js';
import type { ChatFlags } from './commands/chat.js';
import type { CliContext } from './commands/context.js';
import type { PublicKeyCreateFlags } from './commands/publicKeys.js';
import type { SdkTokenFlags } from './commands/sdkTokens.js';
import { parseInstant } from './replay/filter.js';
import { isUsageError } from './usageError.js';
import { cliVersion } from './version.js';

// Each command's module (and the packages behind it) loads only when that command runs: `parley
// --help` and `parley --version` load commander and this file alone.
const commands = {
  agents: () => import('./commands/agents.js'),
  channels: () => import('./commands/channels.js'),
  chat: () => import('./commands/chat.js'),
  keys: () => import('./commands/keys.js'),
  migrate: () => import('./commands/migrate.js'),
  projections: () => import('./commands/projections.js'),
  projects: () => import('./commands/projects.js'),
  publicKeys: () => import('./commands/publicKeys.js'),
  replay: () => import('./commands/replay.js'),
  sdkTokens: () => import('./commands/sdkTokens.js'),
  seed: () => import('./commands/seed.js'),
  serve: () => import('./commands/serve.js'),
  telephony: () => import('./commands/telephony.js'),
  tenants: () => import('./commands/tenants.js'),
};

async function context(fd: 1 | 2): Promise<CliContext> {
  const { createLogger, loadConfig } = await import('@parley/platform');
  const config = loadConfig();
  // Servers log at LOG_LEVEL (default info); one-shot commands show only warnings unless asked,
  // since their progress and results are their output.
  const level = fd === 1 || process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn';
  const logger = createLogger({ level, format: config.LOG_FORMAT, fd });
  return { config, logger, out: process.stdout, err: process.stderr };
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
};
/** `--random-seed`: a whole number from 0 to 2^32 - 1. */
const randomSeed = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) {
    throw new InvalidArgumentError('must be a whole number from 0 to 4294967295');
  }
  return n;
};
const instant = (flag: string) => (value: string) => {
  try {
    return parseInstant(value, flag);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};
const list = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

const program = new Command('parley')
  .description('Parley: an event-sourced backend for conversational-agent platforms')
  .version(cliVersion, '-V, --version', 'print the version of Parley')
  .showHelpAfterError()
  .configureHelp({ sortSubcommands: false });

program
  .command('start')
  .description('run the API and the worker in one process; with no DATABASE_URL, on the embedded PostgreSQL')
  .option('--no-demo', 'on the embedded database, do not create the demo project at the first start')
  .action(async (opts: { demo: boolean }) => {
    // Loading the API and the worker, then the embedded PostgreSQL, takes seconds: say so first.
    process.stdout.write('Starting Parley…\n');
    return (await commands.serve()).serve(await context(1), {
      api: true,
      worker: true,
      database: 'own',
      welcome: true,
      demo: opts.demo,
    });
  });

program
  .command('api')
  .description('run the HTTP API (production; needs DATABASE_URL)')
  .action(async () =>
    (await commands.serve()).serve(await context(1), {
      api: true,
      worker: false,
      database: 'external',
      welcome: false,
    }),
  );

program
  .command('worker')
  .description('run the worker: projections and background jobs (production; needs DATABASE_URL)')
  .action(async () =>
    (await commands.serve()).serve(await context(1), {
      api: false,
      worker: true,
      database: 'external',
      welcome: false,
    }),
  );

program
  .command('migrate')
  .description('apply pending database migrations')
  .option('--status', 'list pending migrations instead (exit code 1 when any)')
  .action(async (options: { status?: boolean }) =>
    (await commands.migrate()).migrateCommand(await context(2), options),
  );

const projections = program.command('projections').description('read models built from the log');
projections
  .command('status')
  .description("each projection's generation, checkpoint and lag (events and seconds behind the head)")
  .option('--json', 'machine-readable output')
  .action(async (options: { json?: boolean }) =>
    (await commands.projections()).projectionsStatusCommand(await context(2), options),
  );
projections
  .command('rebuild')
  .description(
    'rebuild a projection from the start of the log into new tables, then swap them in (no downtime)',
  )
  .argument('<name>', 'projection name (see `parley projections status`)')
  .action(async (name: string) =>
    (await commands.projections()).projectionsRebuildCommand(await context(2), name),
  );

program
  .command('replay')
  .description('write events from the log as JSON lines (audit, export); filters combine with AND')
  .option('--stream <stream>', 'one stream, e.g. session-<id>')
  .option('--type <types>', 'event types, comma-separated or repeated', list)
  .option('--from <instant>', 'recorded at or after (ISO 8601)', instant('--from'))
  .option('--to <instant>', 'recorded before (ISO 8601)', instant('--to'))
  .option('--project <projectId>', "events whose metadata's projectId is this")
  .option('--after <position>', 'start after this log position (commit/prepare)')
  .option('--out <file>', 'write to a file instead of stdout')
  .option('--upcast', 'convert events of older schema versions to the current one', false)
  .addOption(new Option('--batch-size <n>', 'events read per query').argParser(positiveInt).default(5_000))
  .option('--to-nats', 'publish to the JetStream stream (subjects and payloads as the relay; needs NATS_URL)')
  .option(
    '--msg-id-suffix <suffix>',
    'with --to-nats: Nats-Msg-Id <eventId>:<suffix>, so JetStream keeps repeats',
  )
  .option(
    '--nats-stream <name>',
    'with --to-nats: the JetStream stream (default NATS_STREAM_NAME, PARLEY_EVENTS)',
  )
  .option('--subject-prefix <token>', 'with --to-nats: first subject token', 'parley')
  .action(
    async (options: {
      toNats?: boolean;
      msgIdSuffix?: string;
      natsStream?: string;
      subjectPrefix: string;
      stream?: string;
      type?: string[];
      from?: Date;
      to?: Date;
      project?: string;
      after?: string;
      out?: string;
      upcast: boolean;
      batchSize: number;
    }) =>
      (await commands.replay()).replayCommand(await context(2), {
        stream: options.stream,
        types: options.type,
        from: options.from,
        to: options.to,
        projectId: options.project,
        after: options.after,
        out: options.out,
        upcast: options.upcast,
        batchSize: options.batchSize,
        toNats: options.toNats,
        msgIdSuffix: options.msgIdSuffix,
        natsStream: options.natsStream,
        subjectPrefix: options.subjectPrefix,
      }),
  );

program
  .command('seed')
  .description(
    'demo tenant, project, four API keys (analytics, ingest, recordings, console) and N sessions through the ingest path',
  )
  .addOption(new Option('--sessions <n>', 'how many sessions').argParser(positiveInt).default(200))
  .option('--project-slug <slug>', 'slug of the demo project (reused when the demo tenant has it)', 'demo')
  .addOption(
    new Option('--random-seed <n>', 'the same seed makes the same sessions (default: random)').argParser(
      randomSeed,
    ),
  )
  .option('--json', 'print one JSON object: tenant, project, keys and counts')
  .action(async (options: { sessions: number; projectSlug: string; randomSeed?: number; json?: boolean }) =>
    (await commands.seed()).seedCommand(await context(2), options),
  );

const tenants = program.command('tenants').description('tenants: the accounts projects belong to');
tenants
  .command('create')
  .description('create a tenant')
  .requiredOption('--name <name>', 'display name')
  .addOption(
    new Option('--rate-limit <perSecond>', "requests per second (default: the deployment's)").argParser(
      positiveInt,
    ),
  )
  .option('--json', 'print the tenant as one JSON object')
  .action(async (options: { name: string; rateLimit?: number; json?: boolean }) =>
    (await commands.tenants()).tenantsCreateCommand(await context(2), options),
  );
tenants
  .command('list')
  .description('list tenants')
  .option('--json', 'machine-readable output')
  .action(async (options: { json?: boolean }) =>
    (await commands.tenants()).tenantsListCommand(await context(2), options),
  );

const projectsCmd = program.command('projects').description("projects: a tenant's agents, data and keys");
projectsCmd
  .command('create')
  .description('create a project (with the environments dev, staging, production, working-copy)')
  .requiredOption('--tenant <tenantId>', 'the owning tenant')
  .requiredOption('--slug <slug>', 'short name, unique within the tenant (a-z, 0-9, -)')
  .option('--name <name>', 'display name (default: the slug)')
  .option('--json', 'print the project as one JSON object')
  .action(async (options: { tenant: string; slug: string; name?: string; json?: boolean }) =>
    (await commands.projects()).projectsCreateCommand(await context(2), options),
  );
projectsCmd
  .command('list')
  .description('list projects')
  .option('--tenant <tenantId>', "only this tenant's")
  .option('--json', 'machine-readable output')
  .action(async (options: { tenant?: string; json?: boolean }) =>
    (await commands.projects()).projectsListCommand(await context(2), options),
  );

const keys = program
  .command('keys')
  .description('platform API keys (plat_…) and public widget keys (pk_…), bound to one project');
keys
  .command('create')
  .description('create a key and print it once (only its hash is kept)')
  .requiredOption('--project <idOrSlug>', 'the project the key is bound to')
  .option('--scope <scopes>', `${SCOPE_NAMES.join(', ')} (comma-separated or repeated)`, list)
  .option('--name <name>', 'a label (default: the scopes)')
  .option('--expires-in <duration>', 'lifetime such as 90m, 12h, 30d, 2w (default: no expiry)')
  .option('--json', 'print the key and its record as one JSON object')
  .action(
    async (options: {
      project: string;
      scope?: string[];
      name?: string;
      expiresIn?: string;
      json?: boolean;
    }) => (await commands.keys()).keysCreateCommand(await context(2), options),
  );
keys
  .command('list')
  .description("a project's keys: prefix, scopes, status, expiry, last use (never the key)")
  .requiredOption('--project <idOrSlug>', 'the project')
  .option('--json', 'machine-readable output')
  .action(async (options: { project: string; json?: boolean }) =>
    (await commands.keys()).keysListCommand(await context(2), options),
  );
keys
  .command('revoke')
  .description('revoke a key (takes effect at once)')
  .argument('<keyId>', 'the key id (key_…), from `parley keys list`')
  .action(async (keyId: string) => (await commands.keys()).keysRevokeCommand(await context(2), keyId));
keys
  .command('create-public')
  .description('create a public widget key (pk_…) usable only from the given origins, and print it')
  .requiredOption('--project <idOrSlug>', 'the project the key is bound to')
  .option('--origin <origins>', 'an allowed origin, https://host[:port] (comma-separated or repeated)', list)
  .option('--voice', 'allow voice (default: chat only)')
  .option('--no-chat', 'do not allow chat')
  .option('--name <name>', 'a label (default: widget)')
  .option('--json', 'print the key record as one JSON object')
  .action(async (options: PublicKeyCreateFlags) =>
    (await commands.publicKeys()).keysCreatePublicCommand(await context(2), options),
  );
keys
  .command('list-public')
  .description("a project's public widget keys: key, origins, permissions, status")
  .requiredOption('--project <idOrSlug>', 'the project')
  .option('--json', 'machine-readable output')
  .action(async (options: { project: string; json?: boolean }) =>
    (await commands.publicKeys()).keysListPublicCommand(await context(2), options),
  );
keys
  .command('revoke-public')
  .description('revoke a public widget key (takes effect at once)')
  .argument('<publicKeyId>', 'the public key id (pkk_…), from `parley keys list-public`')
  .action(async (keyId: string) =>
    (await commands.publicKeys()).keysRevokePublicCommand(await context(2), keyId),
  );

program
  .command('sdk-tokens')
  .description(
    'SDK session tokens (X-SDK-Token) for the conversation endpoints, signed with SDK_TOKEN_SECRET',
  )
  .command('issue')
  .description(
    "mint a short-lived token for a project's end user and print it (to try chat as a widget would)",
  )
  .requiredOption('--project <idOrSlug>', 'the project the token reaches')
  .option('--sub <id>', 'the end user or visitor id, recorded as channelUserId (default: anon_<uuid>)')
  .addOption(
    new Option('--ttl <seconds>', 'lifetime in seconds, at most 86400 (default 900)').argParser(positiveInt),
  )
  .option('--channel <id>', 'the SDK channel it is for (claim channel_id)')
  .option('--origin <origin>', 'the browser origin it is valid from, e.g. https://shop.example')
  .option('--json', 'print the token, its expiry and its claims as one JSON object')
  .action(async (options: SdkTokenFlags) =>
    (await commands.sdkTokens()).sdkTokensIssueCommand(await context(2), options),
  );

const agentsCmd = program
  .command('agents')
  .description(
    "a project's agents: model, provider, system prompt, tools, guardrails, handoffs (docs/agents.md)",
  );
const agentFlags = (command: Command, verb: 'create' | 'update') =>
  command
    .requiredOption('--project <idOrSlug>', 'the project')
    .option(
      '--file <path>',
      'the agent as JSON (the API body: docs/agents.md); the other options override its fields',
    )
    .option(
      '--provider <provider>',
      `scripted, openai-compatible or anthropic${verb === 'create' ? ' (default scripted)' : ''}`,
    )
    .option('--model <model>', `model name${verb === 'create' ? " (default: the provider's)" : ''}`)
    .option('--system-prompt <text>', 'the system prompt')
    .option('--system-prompt-file <path>', 'read the system prompt from a file')
    .option(
      '--tools <json>',
      'tool definitions: a JSON array [{name, description, parameters, implementation, suspend}], or @file',
    )
    .option('--guardrails <json>', 'JSON {blockedTerms, maxReplyChars, blockedReply, pii, model}, or @file')
    .option(
      '--secrets <json>',
      `JSON {NAME: value} (stored encrypted, never shown)${verb === 'update' ? '; null deletes one' : ''}, or @file`,
    )
    .option(
      '--system-tools <json>',
      'JSON {handoff, escalate, endConversation, presentActions, attachMedia}, or @file',
    )
    .option('--handoffs <json>', 'JSON {targets, remote}, or @file')
    .option('--max-iterations <n>', 'model calls per turn (1-25, default 5)')
    .option('--description <text>', verb === 'update' ? 'a description ("" clears it)' : 'a description')
    .option('--environment <env>', 'environment of new sessions: dev, staging, production, working-copy')
    .option('--deployment <id>', 'deployment id recorded on new sessions')
    .option('--json', 'print the agent as one JSON object');
agentFlags(
  agentsCmd.command('create').description('create an agent').argument('<name>', 'unique in the project'),
  'create',
).action(async (name: string, options: AgentFlags & { project: string }) =>
  (await commands.agents()).agentsCreateCommand(await context(2), name, options),
);
agentsCmd
  .command('list')
  .description("a project's agents, oldest first (a chat without --agent talks to the first)")
  .requiredOption('--project <idOrSlug>', 'the project')
  .option('--json', 'machine-readable output')
  .action(async (options: { project: string; json?: boolean }) =>
    (await commands.agents()).agentsListCommand(await context(2), options),
  );
agentsCmd
  .command('show')
  .description('one agent, with its system prompt')
  .argument('<name>', 'the agent')
  .requiredOption('--project <idOrSlug>', 'the project')
  .option('--json', 'print the agent as one JSON object')
  .action(async (name: string, options: { project: string; json?: boolean }) =>
    (await commands.agents()).agentsShowCommand(await context(2), name, options),
  );
agentFlags(
  agentsCmd.command('update').description('change the fields given').argument('<name>', 'the agent'),
  'update',
).action(async (name: string, options: AgentFlags & { project: string }) =>
  (await commands.agents()).agentsUpdateCommand(await context(2), name, options),
);
agentsCmd
  .command('delete')
  .description('delete an agent (its sessions keep their history)')
  .argument('<name>', 'the agent')
  .requiredOption('--project <idOrSlug>', 'the project')
  .action(async (name: string, options: { project: string }) =>
    (await commands.agents()).agentsDeleteCommand(await context(2), name, options),
  );

program
  .command('chat')
  .description("talk to a project's agent in the terminal: replies stream, the session id is shown")
  .requiredOption('--project <idOrSlug>', 'the project (its id with --url)')
  .option('--agent <name>', "the agent of a new session (default: the project's first)")
  .option('--session <id>', 'continue this session')
  .option('--message <text>', 'send this one message, print the reply and exit')
  .option('--url <url>', 'talk to a running API over chat/stream (default: run the agent in this process)')
  .option('--api-key <key>', 'with --url: a key with the chat.write scope (prefer PARLEY_API_KEY)')
  .addHelpText('after', `\n${CHAT_COMMANDS.join('\n')}`)
  .action(async (options: ChatFlags) => (await commands.chat()).chatCommand(await context(2), options));

const telephony = program
  .command('telephony')
  .description('telephony provider accounts (recording callbacks, media)');
const telephonyAccounts = telephony
  .command('accounts')
  .description(
    'provider accounts: callbacks are verified with their auth token, media fetched with their credentials',
  );
telephonyAccounts
  .command('add')
  .description(
    'register a provider account for a project (auth token from TELEPHONY_AUTH_TOKEN or --auth-token)',
  )
  .requiredOption('--account-sid <sid>', "the provider's account SID (AC…)")
  .requiredOption('--project <idOrSlug>', 'the project its calls belong to')
  .option(
    '--auth-token <token>',
    'the auth token (prefer TELEPHONY_AUTH_TOKEN: flags show in ps and shell history)',
  )
  .option(
    '--recording-username <user>',
    'recording-server user (e.g. an API key SID); default: the account SID',
  )
  .option(
    '--recording-password <password>',
    'its password (prefer TELEPHONY_RECORDING_PASSWORD); default: the auth token',
  )
  .option('--json', 'print the account as one JSON object (never the token)')
  .action(
    async (options: {
      accountSid: string;
      project: string;
      authToken?: string;
      recordingUsername?: string;
      recordingPassword?: string;
      json?: boolean;
    }) => (await commands.telephony()).telephonyAccountsAddCommand(await context(2), options),
  );
telephonyAccounts
  .command('list')
  .description('registered accounts: SID, project, tenant, which recording credentials (never a secret)')
  .option('--project <idOrSlug>', 'only this project')
  .option('--json', 'machine-readable output')
  .action(async (options: { project?: string; json?: boolean }) =>
    (await commands.telephony()).telephonyAccountsListCommand(await context(2), options),
  );
telephonyAccounts
  .command('remove')
  .description('remove an account: its callbacks are refused (401) from then on')
  .argument('<accountSid>', 'the account SID')
  .action(async (accountSid: string) =>
    (await commands.telephony()).telephonyAccountsRemoveCommand(await context(2), accountSid),
  );

program
  .command('channels')
  .description('channel connections (docs/channels.md)')
  .command('rotate-credentials')
  .description(
    're-encrypt every connection under CHANNEL_CREDENTIALS_KEY (older keys in CHANNEL_CREDENTIALS_KEYS)',
  )
  .option('--json', 'print { reencrypted, currentKeyId, connectionsByKeyId } as one JSON object')
  .action(async (options: { json?: boolean }) =>
    (await commands.channels()).channelsRotateCredentialsCommand(await context(2), options),
  );

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const { ConfigError } = await import('@parley/platform');
  if (err instanceof ConfigError || isUsageError(err)) {
    process.stderr.write(`parley: ${(err as Error).message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`parley: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
