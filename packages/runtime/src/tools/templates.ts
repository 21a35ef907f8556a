/**
 * `{{…}}` templates of http tools (docs/agents.md "Templates"): `args.<path>` (the model's
 * arguments), `session.id|channel|environment|channelUserId`, `session.messageMetadata.<path>` and
 * its alias `message_metadata.<path>` (this turn's A2A message metadata, spec 001 §6), and, where
 * allowed (headers), `secrets.<NAME>`. A missing value renders as nothing; a string as itself, any
 * other value as JSON. Text that is not a placeholder stays as written.
 */
export interface TemplateContext {
  args: Record<string, unknown>;
  session: {
    id: string;
    channel: string;
    environment: string;
    channelUserId?: string | undefined;
    messageMetadata?: Record<string, unknown> | undefined;
  };
  secrets?: Record<string, string>;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

function walk(root: unknown, keys: readonly string[]): unknown {
  let value = root;
  for (const key of keys) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The value a placeholder path names; `secrets` only when `allowSecrets`. */
export function lookupTemplateValue(ctx: TemplateContext, path: string, allowSecrets: boolean): unknown {
  const [head, ...rest] = path.split('.');
  switch (head) {
    case 'args':
      return walk(ctx.args, rest);
    case 'message_metadata':
      return walk(ctx.session.messageMetadata, rest);
    case 'session':
      if (rest[0] === 'messageMetadata') return walk(ctx.session.messageMetadata, rest.slice(1));
      return rest.length === 1 ? walk(ctx.session, rest) : undefined;
    case 'secrets':
      return allowSecrets && rest.length === 1 ? ctx.secrets?.[rest[0]!] : undefined;
    default:
      return undefined;
  }
}

const text = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

export function renderTemplate(
  template: string,
  ctx: TemplateContext,
  options: { encode?: (value: string) => string; allowSecrets?: boolean } = {},
): string {
  if (!template.includes('{{')) return template;
  const encode = options.encode ?? ((v: string) => v);
  return template.replace(PLACEHOLDER, (_match, path: string) =>
    encode(text(lookupTemplateValue(ctx, path, options.allowSecrets === true))),
  );
}

/** A URL template: every inserted value is percent-encoded, so an argument cannot change the URL's shape. */
export const renderUrl = (template: string, ctx: TemplateContext): string =>
  renderTemplate(template, ctx, { encode: encodeURIComponent });
