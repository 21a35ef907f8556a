import type { ActionSet } from '@parley/events';
import type { SyncOutcome, SyncResponse } from '../../adapter.js';
import { truncate } from '../shared.js';
import type { VxmlFields } from './vxmlPayload.js';

export const VXML_CONTENT_TYPE = 'application/voicexml+xml; charset=utf-8';

/** Our limits: characters of one prompt, spoken options, and an option label in the grammar. */
export const VXML_LIMITS = { prompt: 5000, options: 10, optionLabel: 200 } as const;

/** Settings of a connection that shape its documents (all optional; see docs "vxml"). */
export interface VxmlSettings {
  /** `xml:lang` of the documents (BCP 47), default `en-US`. */
  language: string;
  /**
   * The free-speech grammar of the field (VoiceXML has no standard one; platforms name theirs),
   * default `builtin:grammar/dictation`; '' for none (options only, or the platform's default).
   */
  openGrammarUri: string;
  /** Spoken at call start (a request without an utterance nor a turn). */
  greeting: string;
  /** `disconnect` (hang up, default) or `exit` (return to the calling application) at the end. */
  onEnd: 'disconnect' | 'exit';
}

export const DEFAULT_VXML_SETTINGS: VxmlSettings = {
  language: 'en-US',
  openGrammarUri: 'builtin:grammar/dictation',
  greeting: 'Hello, how can I help you?',
  onEnd: 'disconnect',
};

const LANGUAGE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;

export function vxmlSettingsOf(settings: Record<string, unknown>): VxmlSettings {
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const language = text(settings.language);
  const openGrammarUri = text(settings.openGrammarUri);
  const greeting = text(settings.greeting);
  return {
    language: language !== undefined && LANGUAGE.test(language) ? language : DEFAULT_VXML_SETTINGS.language,
    openGrammarUri: openGrammarUri ?? DEFAULT_VXML_SETTINGS.openGrammarUri,
    greeting: greeting !== undefined && greeting.trim() !== '' ? greeting : DEFAULT_VXML_SETTINGS.greeting,
    onEnd: settings.onEnd === 'exit' ? 'exit' : 'disconnect',
  };
}

/** Characters XML 1.0 does not allow (controls, lone surrogates, U+FFFE/U+FFFF) are dropped. */
const INVALID_XML_CHARS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the characters XML forbids is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text or attribute content: invalid characters dropped, markup characters escaped. */
export const xmlEscape = (text: string): string =>
  text
    .replace(INVALID_XML_CHARS, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');

/** An ECMAScript string literal (for `expr`), before XML escaping. */
const jsString = (text: string): string =>
  JSON.stringify(text.replace(INVALID_XML_CHARS, ''))
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');

/**
 * Markdown as something to say: code fences, emphasis, headings, list and quote markers, tables'
 * pipes and HTML tags removed; links and images read as their text; whitespace collapsed per line.
 */
export function speakable(markdown: string): string {
  return markdown
    .replace(/```[^\n]*\n?/g, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>\n]*>/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s).,!?:;]|$)/g, '$1$2')
    .split('\n')
    .map((line) =>
      line
        .replace(/^\s{0,3}#{1,6}\s+/, '')
        .replace(/^\s*>\s?/, '')
        .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
        .replace(/^\s*\|?[\s:|-]*-{3,}[\s:|-]*\|?\s*$/, '')
        .replaceAll('|', ' ')
        .replace(/[ \t]+/g, ' ')
        .trim(),
    )
    .filter((line) => line !== '')
    .join('\n');
}

/** The labels the caller can say for an ACTION_SET: buttons' and select options' labels. */
export function optionLabels(actionSet: ActionSet): string[] {
  const labels: string[] = [];
  for (const element of actionSet.elements) {
    if (element.type === 'button') labels.push(element.label);
    else if (element.type === 'select') for (const option of element.options) labels.push(option.label);
  }
  const seen = new Set<string>();
  return labels
    .map((label) => truncate(speakable(label).replace(/\s+/g, ' ').trim(), VXML_LIMITS.optionLabel))
    .filter((label) => label !== '' && !seen.has(label.toLowerCase()) && seen.add(label.toLowerCase()))
    .slice(0, VXML_LIMITS.options);
}

/** The options read out: "Yes, No or Maybe." (the prompt first, text inputs' labels after). */
function spokenOptions(actionSet: ActionSet, labels: readonly string[]): string {
  const parts: string[] = [];
  if (actionSet.prompt !== undefined && actionSet.prompt.trim() !== '')
    parts.push(speakable(actionSet.prompt));
  if (labels.length === 1) parts.push(`Say ${labels[0]}.`);
  else if (labels.length > 1)
    parts.push(`Say ${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}.`);
  for (const element of actionSet.elements)
    if (element.type === 'text_input') parts.push(speakable(element.label));
  return parts.join(' ');
}

const prompt = (text: string): string =>
  text.trim() === '' ? '' : `<prompt>${xmlEscape(truncate(text.trim(), VXML_LIMITS.prompt))}</prompt>`;

export interface VxmlDocumentInput {
  /** The call's fields (null: the request had no session id). */
  fields: VxmlFields | null;
  /** Where the next utterance is submitted: the hook's path and query (relative to the document). */
  next: string;
  settings: VxmlSettings;
}

/**
 * A VoiceXML 2.1 document: the prompts, then either a `<field>` that collects the next utterance
 * and submits it back to the hook (`session_id`, `turn`, `utterance`, `caller`), or, when
 * `end`, `<disconnect/>` (or `<exit/>`). An ACTION_SET adds its options to the prompt and an
 * inline SRGS grammar of their labels to the field (beside the open grammar).
 */
export function vxmlDocument(
  input: VxmlDocumentInput,
  say: string[],
  options: { end: boolean; labels?: readonly string[] },
): string {
  const { fields, settings } = input;
  const prompts = say.map(prompt).filter((p) => p !== '');
  const head =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<vxml version="2.1" xmlns="http://www.w3.org/2001/vxml" xml:lang="${xmlEscape(settings.language)}">\n`;
  if (options.end || fields === null) {
    const end = settings.onEnd === 'exit' ? '<exit/>' : '<disconnect/>';
    return `${head}<form id="end"><block>${prompts.join('')}${end}</block></form>\n</vxml>\n`;
  }
  const turn = (fields.turn ?? 0) + 1;
  const vars = [
    `<var name="session_id" expr="${xmlEscape(jsString(fields.sessionId))}"/>`,
    `<var name="turn" expr="${xmlEscape(jsString(String(turn)))}"/>`,
    `<var name="caller" expr="${xmlEscape(jsString(fields.caller ?? ''))}"/>`,
  ];
  const grammars: string[] = [];
  if (settings.openGrammarUri !== '') grammars.push(`<grammar src="${xmlEscape(settings.openGrammarUri)}"/>`);
  const labels = options.labels ?? [];
  if (labels.length > 0) {
    const items = labels.map((label) => `<item>${xmlEscape(label)}</item>`).join('');
    grammars.push(
      `<grammar mode="voice" version="1.0" root="options" xmlns="http://www.w3.org/2001/06/grammar">` +
        `<rule id="options" scope="public"><one-of>${items}</one-of></rule></grammar>`,
    );
  }
  return (
    `${head}${vars.join('\n')}\n<form id="turn">\n<field name="utterance">\n` +
    `${prompts.join('\n')}${prompts.length > 0 ? '\n' : ''}${grammars.join('\n')}${grammars.length > 0 ? '\n' : ''}` +
    `<filled><submit next="${xmlEscape(input.next)}" method="post" namelist="session_id turn utterance caller"/></filled>\n` +
    `</field>\n</form>\n</vxml>\n`
  );
}

const SORRY = 'Sorry, something went wrong. Please say that again.';

/**
 * The response to one IVR request (always 200: a failed fetch ends most calls with
 * error.badfetch): the reply (text made speakable, then the ACTION_SET's options) and the next
 * field, or the end of the call when the session ended; the greeting at call start; a re-prompt
 * when nothing was recognized or the turn failed or timed out; an apology and the end of the
 * call when the connection is off or the service unavailable.
 */
export function renderVxmlResponse(outcome: SyncOutcome, input: VxmlDocumentInput): SyncResponse {
  let body: string;
  switch (outcome.kind) {
    case 'reply': {
      const actionSet = outcome.reply.actionSet;
      const labels = actionSet === undefined || outcome.sessionEnded ? [] : optionLabels(actionSet);
      const say = [speakable(outcome.reply.text)];
      if (actionSet !== undefined && !outcome.sessionEnded) say.push(spokenOptions(actionSet, labels));
      body = vxmlDocument(input, say, { end: outcome.sessionEnded, labels });
      break;
    }
    case 'no_message': {
      if (input.fields === null) {
        body = vxmlDocument(input, ['Sorry, this call could not be identified. Goodbye.'], { end: true });
        break;
      }
      const start = input.fields.turn === undefined;
      body = vxmlDocument(input, [start ? input.settings.greeting : 'Sorry, I did not catch that.'], {
        end: false,
      });
      break;
    }
    case 'connection_inactive':
      body = vxmlDocument(input, ['This service is not available. Goodbye.'], { end: true });
      break;
    case 'error':
      body =
        outcome.error === 'unavailable'
          ? vxmlDocument(input, ['This service is not available right now. Goodbye.'], { end: true })
          : vxmlDocument(input, [SORRY], { end: false });
      break;
  }
  return { status: 200, contentType: VXML_CONTENT_TYPE, body };
}
