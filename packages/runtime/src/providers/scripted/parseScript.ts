/** The containment types `/end` takes: what the end_conversation system tool takes, and `escalated` (the escalate tool). */
export const SCRIPT_END_TYPES = [
  'contained_resolved',
  'contained_partial',
  'contained_unresolved',
  'escalated',
] as const;
export type ScriptEndType = (typeof SCRIPT_END_TYPES)[number];

/**
 * The scripted provider's keywords. A command starts with `/keyword` at the start of the message
 * or after whitespace and runs to the next command; the rest of the message is plain text.
 * Unknown `/words` are plain text. The README's "Providers and prices" section documents each.
 */
export const SCRIPT_KEYWORDS = [
  'tool',
  'handoff',
  'end',
  'escalate',
  'buttons',
  'select',
  'input',
  'media',
  'error',
  'length',
  'reason',
  'delay',
  'say',
] as const;
export type ScriptKeyword = (typeof SCRIPT_KEYWORDS)[number];

export type ScriptCommand =
  | { keyword: 'tool'; name: string; arguments: Record<string, unknown> }
  | { keyword: 'handoff'; agentName: string; reason?: string }
  | { keyword: 'end'; containmentType: ScriptEndType; reason?: string }
  | { keyword: 'buttons'; labels: string[] }
  | { keyword: 'select'; label: string; options: string[] }
  | { keyword: 'input'; label: string }
  | { keyword: 'media'; url: string; caption?: string }
  | { keyword: 'error'; statusCode: number }
  | { keyword: 'length' }
  | { keyword: 'reason'; tokens: number }
  | { keyword: 'delay'; ms: number }
  | { keyword: 'say'; text: string };

export interface Script {
  /** The message without its commands, whitespace collapsed. */
  text: string;
  commands: ScriptCommand[];
  /** Commands that could not be read, as `"/end maybe": why`; the reply states them. */
  problems: string[];
}

export const MAX_DELAY_MS = 10_000;
/** Keywords whose argument is one word; the rest of the command (all of it after /length) is plain text. */
const TAKES_ONE_WORD: ReadonlySet<ScriptKeyword> = new Set(['error', 'reason', 'delay']);
const COMMAND = new RegExp(`(?:^|\\s)/(${SCRIPT_KEYWORDS.join('|')})(?=\\s|$)`, 'g');

export function parseScript(message: string): Script {
  const starts = [...message.matchAll(COMMAND)].map((match) => ({
    keyword: match[1] as ScriptKeyword,
    at: match.index + match[0].indexOf('/'),
    argsAt: match.index + match[0].length,
  }));
  const plain: string[] = [message.slice(0, starts[0]?.at ?? message.length)];
  const commands: ScriptCommand[] = [];
  const problems: string[] = [];
  starts.forEach((start, i) => {
    const end = starts[i + 1]?.at ?? message.length;
    let args = message.slice(start.argsAt, end).trim();
    if (start.keyword === 'length') {
      plain.push(args);
      args = '';
    } else if (TAKES_ONE_WORD.has(start.keyword)) {
      // `/reason 300 think hard`: the words after the value are plain text.
      const space = args.search(/\s/);
      if (space >= 0) {
        plain.push(args.slice(space));
        args = args.slice(0, space);
      }
    }
    const parsed = parseCommand(start.keyword, args);
    if (typeof parsed === 'string') problems.push(`"/${start.keyword}${args ? ` ${args}` : ''}": ${parsed}`);
    else commands.push(parsed);
  });
  return { text: plain.join(' ').replace(/\s+/g, ' ').trim(), commands, problems };
}

/** A command, or why it cannot be read. */
function parseCommand(keyword: ScriptKeyword, args: string): ScriptCommand | string {
  const [first = '', ...restWords] = args.split(/\s+/).filter((w) => w !== '');
  const rest = restWords.join(' ');
  switch (keyword) {
    case 'tool':
      if (first === '') return 'expected a tool name';
      return {
        keyword,
        name: first,
        arguments: toolArguments(args.slice(args.indexOf(first) + first.length).trim()),
      };
    case 'handoff':
      if (first === '') return 'expected an agent name';
      return rest ? { keyword, agentName: first, reason: rest } : { keyword, agentName: first };
    case 'end':
      if (!isEndType(first)) return `expected one of ${SCRIPT_END_TYPES.join(', ')}`;
      return rest ? { keyword, containmentType: first, reason: rest } : { keyword, containmentType: first };
    case 'escalate':
      return args
        ? { keyword: 'end', containmentType: 'escalated', reason: args }
        : { keyword: 'end', containmentType: 'escalated' };
    case 'buttons': {
      const labels = splitList(args);
      return labels.length === 0 ? 'expected labels separated by |' : { keyword, labels };
    }
    case 'select': {
      const colon = args.indexOf(':');
      const label = colon < 0 ? '' : args.slice(0, colon).trim();
      const options = colon < 0 ? [] : splitList(args.slice(colon + 1));
      return label === '' || options.length === 0
        ? 'expected "label: option | option"'
        : { keyword, label, options };
    }
    case 'input':
      return args === '' ? 'expected a label' : { keyword, label: args };
    case 'media':
      if (!/^https?:\/\/\S+$/.test(first)) return 'expected an http(s) URL';
      return rest ? { keyword, url: first, caption: rest } : { keyword, url: first };
    case 'error': {
      const statusCode = args === '' ? 500 : Number(args);
      const valid =
        Number.isInteger(statusCode) && (statusCode === 0 || (statusCode >= 400 && statusCode <= 599));
      return valid ? { keyword, statusCode } : 'expected 0 (no response) or an HTTP status 400-599';
    }
    case 'length':
      return { keyword };
    case 'reason': {
      const tokens = Number(args);
      return Number.isInteger(tokens) && tokens >= 0 ? { keyword, tokens } : 'expected a token count';
    }
    case 'delay': {
      const ms = Number(args);
      return Number.isInteger(ms) && ms >= 0 && ms <= MAX_DELAY_MS
        ? { keyword, ms }
        : `expected 0-${MAX_DELAY_MS} ms`;
    }
    case 'say':
      return args === '' ? 'expected the reply text' : { keyword, text: args };
    default: {
      const exhaustive: never = keyword;
      return exhaustive;
    }
  }
}

/** `{"city":"Paris"}` as is, `city=Paris days=3` as pairs, other text as `{ input }`, nothing as `{}`. */
function toolArguments(text: string): Record<string, unknown> {
  if (text === '') return {};
  if (text.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // not JSON: falls through to free text
    }
  }
  const pairs = text.split(/\s+/);
  if (pairs.every((pair) => /^[A-Za-z_][\w-]*=\S*$/.test(pair))) {
    return Object.fromEntries(
      pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    );
  }
  return { input: text };
}

const splitList = (text: string): string[] =>
  text
    .split('|')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const isEndType = (value: string): value is ScriptEndType =>
  (SCRIPT_END_TYPES as readonly string[]).includes(value);
